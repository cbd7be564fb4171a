# certsteward_warnings(<target>): the project's warning set. Warnings stay at zero;
# CERTSTEWARD_WERROR (on in scripts/test) turns them into errors.
option(CERTSTEWARD_WERROR "Treat warnings as errors" OFF)

function(certsteward_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion -Wnon-virtual-dtor)
  # GCC 12 reports -Wrestrict false positives inside libstdc++'s operator+ on strings at -O2+
  # (GCC bug 105651); the warning is off for that compiler only.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(${target} PRIVATE -Wno-restrict)
  endif()
  if(CERTSTEWARD_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
