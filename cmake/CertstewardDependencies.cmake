# Third-party libraries, found once. Only adapters and app/ link them; domain/ and ports/ never do.
find_package(PkgConfig REQUIRED)
find_package(Threads REQUIRED)
find_package(OpenSSL 3 REQUIRED)
find_package(spdlog REQUIRED)
find_package(Boost 1.81 REQUIRED COMPONENTS json)
pkg_check_modules(PISTACHE REQUIRED IMPORTED_TARGET libpistache)
find_package(SQLite3 REQUIRED)
find_package(mongoc-1.0 1.23 CONFIG REQUIRED)
