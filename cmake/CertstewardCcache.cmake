# Use ccache as the compiler launcher when it is installed: rebuilds on 2 cores stay cheap.
find_program(CERTSTEWARD_CCACHE ccache)
if(CERTSTEWARD_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${CERTSTEWARD_CCACHE}")
endif()
