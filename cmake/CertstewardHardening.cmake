# The hardening Debian's dpkg-buildflags applies to packaged programs, for this project's own
# Release and RelWithDebInfo builds (the Debian package, the container image): fortified libc
# calls, stack protector, and full RELRO with immediate binding. The Asan build keeps the
# sanitizers' own checks instead.
set(certsteward_hardened "$<CONFIG:Release,RelWithDebInfo>")
add_compile_options("$<${certsteward_hardened}:-U_FORTIFY_SOURCE;-D_FORTIFY_SOURCE=2>"
                    "$<${certsteward_hardened}:-fstack-protector-strong>")
add_link_options("$<${certsteward_hardened}:LINKER:-z,relro,-z,now>")
