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
  target_include_directories(${name} PRIVATE "${PROJECT_SOURCE_DIR}" "${PROJECT_SOURCE_DIR}/tests")
  target_compile_options(${name} PRIVATE
    -include "${PROJECT_SOURCE_DIR}/testing/doctest_string_view.hpp")
  certsteward_warnings(${name})
  doctest_discover_tests(${name} PROPERTIES LABELS "${ARG_LABELS}")
endfunction()
