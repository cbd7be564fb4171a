#!/usr/bin/env bash
# The Debian package (cmake/Packaging.cmake, packaging/): cpack builds it from the build
# directory under test; its file list and control fields; lintian without errors (warnings are
# printed); `systemd-analyze verify` and `security` of its unit; then, unpacked (never
# installed), its make-config writes a configuration once (mode 0600 or 0640 root:GROUP, new
# secrets, never overwritten) and its binary serves /healthz and /readyz as an unprivileged user
# without privileges or capabilities, under memory-deny-write-execute where the kernel has it,
# and stops on SIGTERM with exit status 0.
# Usage: package_deb.sh <certsteward binary> <build directory>
set -euo pipefail
bin="$1"
build="$2"
work=$(mktemp -d)
pid=""
cleanup() {
  [ -n "$pid" ] && kill -9 "$pid" 2> /dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in cpack dpkg-deb dpkg-shlibdeps lintian systemd-analyze curl; do
  command -v "$tool" > /dev/null || fail "$tool is missing (scripts/setup installs it)"
done

# 1. Build the package.
cpack --config "$build/CPackConfig.cmake" -B "$work/out" > "$work/cpack.log" 2>&1 \
  || fail "cpack: $(cat "$work/cpack.log")"
debs=("$work"/out/certsteward_*.deb)
[ ${#debs[@]} = 1 ] && [ -f "${debs[0]}" ] || fail "expected one certsteward_*.deb: ${debs[*]}"
deb=${debs[0]}
echo "ok: built $(basename "$deb")"

# 2. Its files and control fields.
dpkg-deb -c "$deb" | awk '{print $1, $2, $6}' > "$work/contents"
for entry in "-rwxr-xr-x root/root ./usr/bin/certsteward" \
  "-rw-r--r-- root/root ./lib/systemd/system/certsteward.service" \
  "-rwxr-xr-x root/root ./usr/lib/certsteward/make-config" \
  "-rw-r--r-- root/root ./usr/share/certsteward/certsteward.conf.example" \
  "-rw-r--r-- root/root ./usr/share/doc/certsteward/copyright" \
  "-rw-r--r-- root/root ./usr/share/doc/certsteward/changelog.gz" \
  "-rw-r--r-- root/root ./usr/share/man/man1/certsteward.1.gz"; do
  grep -qxF -- "$entry" "$work/contents" || fail "package lacks '$entry': $(cat "$work/contents")"
done
# The server's runtime only: no headers, libraries or CMake files of the core, nothing in /etc
# (the configuration is made by the postinst) or /var.
if grep -E '\.(hpp|a|cmake)$|/include/| \./(etc|var)/' "$work/contents"; then
  fail "package holds files it should not"
fi
depends=$(dpkg-deb -f "$deb" Depends)
[ -n "$depends" ] || fail "empty Depends"
for dep in adduser libc6 libssl3 libsqlite3-0; do
  echo "$depends" | grep -qE "(^|, )$dep( |,|$)" || fail "Depends lacks $dep: $depends"
done
[ "$(dpkg-deb -f "$deb" Package)" = certsteward ] || fail "package name"
[ "$("$bin" --version)" = "certsteward $(dpkg-deb -f "$deb" Version)" ] \
  || fail "package version $(dpkg-deb -f "$deb" Version) is not the binary's: $("$bin" --version)"
dpkg-deb -e "$deb" "$work/control"
for script in postinst prerm postrm; do
  [ "$(stat -c %a "$work/control/$script")" = 755 ] || fail "$script is not mode 0755"
  head -1 "$work/control/$script" | grep -qx '#!/bin/sh' || fail "$script is not a sh script"
  sh -n "$work/control/$script" || fail "$script: syntax error"
  grep -qx 'set -e' "$work/control/$script" || fail "$script lacks set -e"
done
echo "ok: contents and control (Depends: $depends)"

# 3. lintian: no error; warnings and the rest are shown.
lint=0
lintian --fail-on error --display-info "$deb" > "$work/lintian" 2>&1 || lint=$?
grep -v '^running with root privileges' "$work/lintian" || true
[ "$lint" = 0 ] && ! grep -q '^E: ' "$work/lintian" || fail "lintian reports errors (exit $lint)"
echo "ok: lintian without errors ($(grep -c '^W: ' "$work/lintian" || true) warning(s))"

# 4. The unit, as systemd reads it. verify exits 0 even on an unknown key or a bad value, so any
# message fails the test; the binary path is rewritten to the unpacked one, and the man page of
# Documentation= is looked up in the package. A copy with a typo must be reported, so this
# check cannot pass by seeing nothing.
root="$work/root"
dpkg-deb -x "$deb" "$root"
unit="$root/lib/systemd/system/certsteward.service"
mkdir -p "$work/unit" "$work/typo"
sed "s|/usr/bin/certsteward|$root/usr/bin/certsteward|g" "$unit" > "$work/unit/certsteward.service"
sed 's/^ProtectSystem=/ProtectSytem=/' "$work/unit/certsteward.service" \
  > "$work/typo/certsteward.service"
verify() { MANPATH="$root/usr/share/man" systemd-analyze verify "$1" > "$work/verify" 2>&1; }
verify "$work/unit/certsteward.service" && [ ! -s "$work/verify" ] \
  || fail "systemd-analyze verify: $(cat "$work/verify")"
verify "$work/typo/certsteward.service" || true
grep -q "ProtectSytem" "$work/verify" || fail "verify did not report a unit with a typo"
# The exposure score of the sandbox (0 best .. 10): at most 2.0.
systemd-analyze security --offline=yes --threshold=20 --no-pager \
  "$work/unit/certsteward.service" > "$work/security" 2>&1 \
  || fail "systemd-analyze security: $(tail -3 "$work/security")"
value() { sed -n "s/^$1=//p" "$unit" | tail -1; }
[ "$(value ExecStart)" = "/usr/bin/certsteward serve --config /etc/certsteward/certsteward.conf" ] \
  || fail "ExecStart: $(value ExecStart)"
[ "$(value User)" = certsteward ] && [ "$(value StateDirectory)" = certsteward ] \
  || fail "User/StateDirectory"
[ "$(value NoNewPrivileges)" = yes ] && [ "$(value ProtectSystem)" = strict ] \
  && [ -z "$(value CapabilityBoundingSet)" ] && [ "$(value MemoryDenyWriteExecute)" = yes ] \
  || fail "hardening settings changed"
# Shutdown takes up to 25 s (requests) + worker.shutdown_wait (55 s) before exit status 0.
stop=$(value TimeoutStopSec)
[ "${stop%s}" -gt 80 ] || fail "TimeoutStopSec=$stop is not over 80 s"
echo "ok: unit verified; $(grep -o 'Overall exposure level.*' "$work/security")"

# 5. make-config: a new file with fresh secrets, mode 0600; never overwritten.
make_config="$root/usr/lib/certsteward/make-config"
mkdir "$work/etc"
"$make_config" "$work/etc/certsteward.conf" > /dev/null || fail "make-config"
conf="$work/etc/certsteward.conf"
[ "$(stat -c %a "$conf")" = 600 ] || fail "mode $(stat -c %a "$conf"), expected 600"
jwt=$(sed -n 's/^jwt\.secret = \([0-9a-f]\{64\}\)$/\1/p' "$conf")
key=$(sed -n 's/^secrets\.key = \([0-9a-f]\{64\}\)$/\1/p' "$conf")
[ -n "$jwt" ] && [ -n "$key" ] && [ "$jwt" != "$key" ] || fail "secrets: $(cat "$conf")"
grep -qx 'server.listen = 127.0.0.1:8080' "$conf" || fail "listen address"
grep -qx 'store.url = sqlite:///var/lib/certsteward/certsteward.db' "$conf" || fail "store.url"
before=$(sha256sum < "$conf")
"$make_config" "$work/etc/certsteward.conf" > "$work/again" || fail "make-config on an existing file"
grep -q "left unchanged" "$work/again" || fail "second run: $(cat "$work/again")"
[ "$(sha256sum < "$conf")" = "$before" ] || fail "make-config overwrote an existing file"
[ "$(stat -c %a "$conf")" = 600 ] || fail "second run changed the mode"
left=$(cd "$work/etc" && echo .[!.]* *)
[ "$left" = ".[!.]* certsteward.conf" ] || fail "make-config left files behind: $left"
"$make_config" "$work/etc/second.conf" > /dev/null
[ "$(sed -n 's/^jwt\.secret = //p' "$work/etc/second.conf")" != "$jwt" ] || fail "secrets repeat"
"$root/usr/bin/certsteward" config check --config "$conf" > "$work/check" 2>&1 \
  || fail "config check of the generated file: $(cat "$work/check")"
echo "ok: make-config"

# 6. The unpacked server as an unprivileged user: the configuration 0640 root:GROUP (as the
# postinst makes it), data in a directory only that user owns, no new privileges, no
# capabilities, no writable+executable memory. Under strace (when there) its system calls are
# recorded, to be checked against the unit's SystemCallFilter= below.
if [ "$(id -u)" = 0 ]; then
  user=nobody
  group=$(id -gn nobody)
  chmod 0755 "$work"
  "$make_config" --group "$group" "$work/etc/run.conf" > /dev/null
  [ "$(stat -c '%a %U %G' "$work/etc/run.conf")" = "640 root $group" ] \
    || fail "--group gave $(stat -c '%a %U %G' "$work/etc/run.conf")"
  as_user=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups
    --no-new-privs --inh-caps=-all --bounding-set=-all)
else
  user=$(id -un)  # already unprivileged
  "$make_config" "$work/etc/run.conf" > /dev/null
  as_user=(setpriv --no-new-privs)
fi
mkdir -m 0750 "$work/data" "$work/trace"
chown "$user" "$work/data" "$work/trace"
mdwe=(/usr/bin/python3 -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
# PR_SET_MDWE: kept across execve; unknown to kernels before 6.3.
on = libc.prctl(65, 1, 0, 0, 0) == 0
print("memory-deny-write-execute:", "on" if on else "not in this kernel", file=sys.stderr)
os.execv(sys.argv[1], sys.argv[1:])')
[ -x /usr/bin/python3 ] || mdwe=()  # Debian's: one on PATH may be in root's home
trace=()
if strace=$(command -v strace); then
  trace=("$strace" -f -qq -c -U name -o "$work/trace/syscalls")
  export ASAN_OPTIONS=detect_leaks=0  # LeakSanitizer cannot run under ptrace (an ASan build)
fi
(
  umask 077
  export CERTSTEWARD_SERVER_LISTEN=127.0.0.1:0
  export CERTSTEWARD_STORE_URL="sqlite://$work/data/certsteward.db"
  export CERTSTEWARD_AUTH_BCRYPT_COST=10
  export CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME=admin
  export CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD=package-test-password-1
  exec "${as_user[@]}" "${mdwe[@]}" "${trace[@]}" "$root/usr/bin/certsteward" serve \
    --config "$work/etc/run.conf"
) > "$work/log" 2>&1 &
pid=$!
server=$pid
port=""
for _ in $(seq 1 300); do  # bounded: at most 30 s
  port=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$work/log" | grep -oE '[0-9]+$' || true)
  [ -n "$port" ] && break
  kill -0 "$pid" 2> /dev/null || fail "server exited early: $(cat "$work/log")"
  sleep 0.1
done
[ -n "$port" ] || fail "server did not report its port: $(cat "$work/log")"
if [ ${#trace[@]} -gt 0 ]; then server=$(pgrep -P "$pid" -x certsteward) || fail "no server under strace"; fi
[ "$(ps -o user= -p "$server")" = "$user" ] || fail "server runs as $(ps -o user= -p "$server")"
for path in /healthz /readyz; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port$path")
  [ "$code" = 200 ] || fail "$path answered $code: $(cat "$work/log")"
done
# A login and a write: the request threads, password hashing and a store transaction.
api="http://127.0.0.1:$port/api/v1"
curl -s -o "$work/login" -w '%{http_code}' -H 'Content-Type: application/json' \
  -d '{"username":"admin","password":"package-test-password-1"}' "$api/auth/login" > "$work/code"
[ "$(cat "$work/code")" = 200 ] || fail "login answered $(cat "$work/code"): $(cat "$work/login")"
token=$(sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p' "$work/login")
code=$(curl -s -o "$work/created" -w '%{http_code}' -H "Authorization: Bearer $token" \
  -H 'Content-Type: application/json' -d '{"name":"packaged"}' "$api/projects")
[ "$code" = 201 ] || fail "POST /projects answered $code: $(cat "$work/created")"
[ "$(stat -c %U "$work/data/certsteward.db")" = "$user" ] || fail "store not owned by $user"
[ "$(stat -c %a "$work/data/certsteward.db")" = 600 ] || fail "store not mode 0600 under umask 077"

kill -TERM "$server"
for _ in $(seq 1 300); do  # bounded: at most 30 s
  kill -0 "$pid" 2> /dev/null || break
  sleep 0.1
done
kill -0 "$pid" 2> /dev/null && fail "server still running 30 s after SIGTERM"
status=0
wait "$pid" || status=$?
pid=""
[ "$status" = 0 ] || fail "exit status $status after SIGTERM: $(cat "$work/log")"
grep -q "stopped" "$work/log" || fail "no clean stop logged"
mdwe_state=$(grep -m1 -o 'memory-deny-write-execute: .*' "$work/log" || echo 'not tried')
echo "ok: the unpacked server ran as $user (healthz, readyz, login, a write, SIGTERM exit 0;" \
  "memory-deny-write-execute: ${mdwe_state#*: })"

# 7. Every system call that run made is one the unit's filter allows (its SystemCallFilter=
# lines in order, the groups expanded as this systemd defines them); under the unit another
# would fail with EPERM. Only what the run above did is covered: outbound ACME, DNS, SSH and
# SMTP calls go through the same socket and poll calls.
if [ ${#trace[@]} -eq 0 ]; then
  echo "skipped: the system-call check (no strace)"
  exit 0
fi
systemd-analyze syscall-filter > "$work/groups" 2> "$work/groups.err" \
  || fail "systemd-analyze syscall-filter: $(cat "$work/groups.err")"
sed -n 's/^SystemCallFilter=//p' "$unit" > "$work/filter"
sed -n '3,$p' "$work/trace/syscalls" | grep -v -e '^-' -e '^total$' | awk '{print $1}' > "$work/used"
[ -s "$work/used" ] || fail "strace recorded no system call"
/usr/bin/python3 - "$work/groups" "$work/filter" "$work/used" > "$work/denied" << 'PY'
import sys
groups, current = {}, None
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    if not line[0].isspace():
        current = groups.setdefault(line.strip(), set())
    elif not line.strip().startswith("#"):
        current.add(line.strip())
def expand(names, seen=()):
    out = set()
    for name in names:
        if name.startswith("@"):
            if name not in groups or name in seen:
                sys.exit("unknown or cyclic group " + name)
            out |= expand(groups[name], seen + (name,))
        else:
            out.add(name)
    return out
allowed = None
for line in open(sys.argv[2]):
    words = line.split()
    if not words:
        continue
    if words[0].startswith("~"):
        allowed -= expand([words[0][1:]] + words[1:])
    else:
        allowed = (allowed or set()) | expand(words)
for name in sorted(set(open(sys.argv[3]).read().split()) - allowed):
    print(name)
PY
[ ! -s "$work/denied" ] || fail "system calls the unit's filter denies: $(tr '\n' ' ' < "$work/denied")"
echo "ok: all $(wc -l < "$work/used") system calls made are allowed by SystemCallFilter="
