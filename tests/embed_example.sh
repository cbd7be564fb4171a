#!/usr/bin/env bash
# examples/embed built and run both ways an embedding team consumes the core: add_subdirectory of
# the source tree, and find_package from a `cmake --install` prefix. Every configure disables
# the server's third-party packages, so it fails if the core needed one of them. The installed
# core's contract suites then run against the example's own store factory.
# Usage: embed_example.sh <source dir>
set -euo pipefail
src=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
no_server=(-DCMAKE_DISABLE_FIND_PACKAGE_OpenSSL=ON -DCMAKE_DISABLE_FIND_PACKAGE_PkgConfig=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_Boost=ON -DCMAKE_DISABLE_FIND_PACKAGE_spdlog=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_SQLite3=ON -DCMAKE_DISABLE_FIND_PACKAGE_CURL=ON
  -DCMAKE_DISABLE_FIND_PACKAGE_Threads=ON)
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
# The two builds of the core compile the same sources with the same flags in two build trees:
# paths below $work are hashed relative to each tree, so the second build comes from the cache.
export CCACHE_BASEDIR="$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

check() {  # the program's own verdict and what it prints
  local out
  out=$("$1") || fail "$2: the example exited $?: $out"
  [ "$out" = "www.example.internal: active, serial 01" ] || fail "$2: printed '$out'"
  echo "ok ($2): $out"
}

# 1. add_subdirectory of the source tree.
cmake -S "$src/examples/embed" -B "$work/sub" -G Ninja -DCERTSTEWARD_SOURCE_DIR="$src" \
  "${no_server[@]}" "${launcher[@]}" > "$work/sub.log" 2>&1 || { cat "$work/sub.log"; fail "configure (add_subdirectory)"; }
cmake --build "$work/sub" > "$work/sub-build.log" 2>&1 || { cat "$work/sub-build.log"; fail "build (add_subdirectory)"; }
check "$work/sub/embed" add_subdirectory

# 2. find_package from an installed core.
cmake -S "$src" -B "$work/core" -G Ninja -DCERTSTEWARD_BUILD_SERVER=OFF \
  -DCMAKE_INSTALL_PREFIX="$work/prefix" "${no_server[@]}" "${launcher[@]}" > "$work/core.log" 2>&1 \
  || { cat "$work/core.log"; fail "configure the core alone"; }
cmake --build "$work/core" > "$work/core-build.log" 2>&1 || { cat "$work/core-build.log"; fail "build the core"; }
cmake --install "$work/core" > /dev/null || fail "install the core"
[ -f "$work/prefix/include/certsteward/domain/result.hpp" ] || fail "headers not under include/certsteward"
[ ! -e "$work/prefix/include/domain" ] || fail "headers installed outside include/certsteward"
[ -f "$work/prefix/include/certsteward/services/job_runner.hpp" ] || fail "services not under include/certsteward/services"
[ ! -e "$work/prefix/include/certsteward/domain/services" ] || fail "services still inside the model's folder"
# One include root for consumers: <prefix>/include, never <prefix>/include/certsteward (a bare
# "domain/..." of ours would otherwise spill into their include path).
targets=$(find "$work/prefix" -name CertStewardTargets.cmake | head -1)
[ -n "$targets" ] || fail "no CertStewardTargets.cmake installed"
grep -q 'INTERFACE_INCLUDE_DIRECTORIES "${_IMPORT_PREFIX}/include"' "$targets" \
  || fail "the installed targets do not put <prefix>/include on the include path"
! grep -q 'include/certsteward' "$targets" || fail "the installed targets put include/certsteward on the include path"
if grep -rEq '#\s*include\s*"(domain|ports|services|testing|adapters)/' "$work/prefix/include/certsteward"; then
  fail "an installed header includes another without the certsteward/ prefix"
fi
cmake -S "$src/examples/embed" -B "$work/pkg" -G Ninja -DCMAKE_PREFIX_PATH="$work/prefix" \
  "${no_server[@]}" "${launcher[@]}" > "$work/pkg.log" 2>&1 || { cat "$work/pkg.log"; fail "configure (find_package)"; }
cmake --build "$work/pkg" > "$work/pkg-build.log" 2>&1 || { cat "$work/pkg-build.log"; fail "build (find_package)"; }
check "$work/pkg/embed" find_package

# The shipped contract suites against the example's own store factory, from the installed core.
[ -x "$work/pkg/embed_contract" ] || fail "the contract suites were not built (doctest missing?)"
"$work/pkg/embed_contract" > "$work/contract.log" 2>&1 || { cat "$work/contract.log"; fail "contract suites"; }
grep -q "Status: SUCCESS" "$work/contract.log" || fail "contract suites: no success line"
cases=$(sed -n 's/.*test cases: *\([0-9]*\) |.*/\1/p' "$work/contract.log" | tail -1)
[ "${cases:-0}" -ge 5 ] || fail "contract suites ran only ${cases:-0} test cases"
echo "ok (contract suites from the installed core): $cases test cases"
