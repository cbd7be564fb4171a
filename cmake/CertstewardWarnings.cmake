# certsteward_warnings(<target>): the project's warning set. Warnings stay at zero;
# CERTSTEWARD_WERROR (on in scripts/test) turns them into errors.
option(CERTSTEWARD_WERROR "Treat warnings as errors" OFF)

function(certsteward_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow -Wconversion
                                           -Wno-sign-conversion -Wnon-virtual-dtor)
  if(CERTSTEWARD_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()
