# certsteward_add_test(<name> SOURCES ... LIBS ... [LABELS ...]): one doctest executable,
# its cases discovered into CTest under the given labels.
find_package(doctest REQUIRED)
include(doctest)

add_library(certsteward_doctest_main STATIC "${PROJECT_SOURCE_DIR}/tests/support/doctest_main.cpp")
target_link_libraries(certsteward_doctest_main PUBLIC doctest::doctest)
target_include_directories(certsteward_doctest_main PRIVATE "${PROJECT_SOURCE_DIR}/tests")

function(certsteward_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE certsteward_doctest_main ${ARG_LIBS})
  target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}/tests")
  target_compile_options(${name} PRIVATE
    -include "${PROJECT_SOURCE_DIR}/testing/doctest_string_view.hpp")
  certsteward_warnings(${name})
  doctest_discover_tests(${name})
  # The labels are set by a script of our own, run by CTest after the discovered cases are
  # defined: doctest_discover_tests would spread a list of labels ("e2e;ui") over its PROPERTIES
  # pairs and keep only the first.
  set(label_script "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(WRITE "${label_script}" "foreach(t IN LISTS ${name}_TESTS)\n"
       "  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${ARG_LABELS}\")\n"
       "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${label_script}")
endfunction()
