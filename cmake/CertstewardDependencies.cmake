# The libraries the test suites and benchmarks use directly (each adapter finds its own in its
# CMakeLists; the core needs none).
find_package(Threads REQUIRED)
find_package(OpenSSL 3 REQUIRED)
find_package(Boost 1.81 REQUIRED COMPONENTS json)
find_package(CURL REQUIRED)
find_package(mongoc-1.0 1.23 CONFIG REQUIRED)
