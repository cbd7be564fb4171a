#!/usr/bin/env python3
"""Static checks of the Containerfile (and .dockerignore) against the built binary.

Usage: container_recipe_check.py CONTAINERFILE DOCKERIGNORE BINARY CONFIG_KEYS_FILE ENV_OUT

- Multi-stage: a debian:12 build stage, a debian:12-slim final stage that copies the binary
  from a stage defined earlier.
- The final stage runs as a fixed numeric non-root UID, declares a VOLUME for
  /var/lib/certsteward, a HEALTHCHECK on /readyz, EXPOSE 8080 and STOPSIGNAL SIGTERM.
- Every CERTSTEWARD_* variable it sets names a configuration key (CONFIG_KEYS_FILE: the keys
  `certsteward config check` lists); it sets no secret; the store is under the volume. ENV_OUT
  receives the variables (NAME=value lines) for the caller to try on the binary, and
  ENV_OUT.health the health check's shell command.
- Every shared library the binary needs (its NEEDED entries) comes from a package the final
  stage installs, or from the Essential set of Debian 12 and its dependencies (in every image);
  the sanitizer runtimes of the test build are left out (the Release build does not link
  them). The data packages the server reads (CA roots, time zones) and the health check's
  tool are installed too; every package named exists in the Debian archive.
- .dockerignore keeps build trees, local data and ui/node_modules out of the build context.
Exit status 0 when everything holds, 1 with one line per problem otherwise.
"""
import json
import re
import shlex
import subprocess
import sys

SANITIZER_PACKAGES = {"libasan8", "libubsan1", "liblsan0", "libtsan2"}
NOT_CONFIG_KEYS = {"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD"}
SECRETS = {"CERTSTEWARD_JWT_SECRET", "CERTSTEWARD_SECRETS_KEY", "CERTSTEWARD_AUDIT_SIGNING_KEY"}
DATA_PACKAGES = {"ca-certificates": "CA roots for ACME, webhooks and SMTP over TLS",
                 "tzdata": "the time zones of user profiles"}


def run(*args):
    return subprocess.run(args, capture_output=True, text=True, check=False)


def instructions(path):
    """(instruction, arguments) pairs, continuation lines joined, comments dropped."""
    out, pending = [], ""
    for raw in open(path, encoding="utf-8"):
        line = raw.rstrip("\n")
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if pending and line.lstrip().startswith("#"):
            continue  # a comment inside a continued instruction
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        line = pending + line
        pending = ""
        word, _, rest = line.strip().partition(" ")
        out.append((word.upper(), rest.strip()))
    return out


def stages(instrs):
    result = []
    for word, args in instrs:
        if word == "FROM":
            parts = args.split()
            image = [p for p in parts if not p.startswith("--")][0]
            name = parts[parts.index("AS") + 1] if "AS" in parts else (
                parts[parts.index("as") + 1] if "as" in parts else None)
            result.append({"image": image, "name": name, "instrs": []})
        elif result:
            result[-1]["instrs"].append((word, args))
    return result


def env_pairs(args):
    tokens = shlex.split(args)
    if tokens and "=" not in tokens[0]:
        return [(tokens[0], " ".join(tokens[1:]))]  # legacy ENV NAME value
    return [tuple(t.split("=", 1)) for t in tokens]


def installed_packages(stage):
    packages = set()
    for word, args in stage["instrs"]:
        if word != "RUN":
            continue
        for command in re.split(r"&&|;|\|\|", args):
            tokens = shlex.split(command)
            if "apt-get" in tokens and "install" in tokens:
                after = tokens[tokens.index("install") + 1:]
                packages |= {t for t in after if not t.startswith("-")}
    return packages


def debian_base_closure():
    essential = run("dpkg-query", "-W", "-f=${Package} ${Essential}\\n").stdout.split("\n")
    names = [line.split()[0] for line in essential if line.endswith(" yes")]
    deps = run("apt-cache", "depends", "--recurse", "--installed", "--no-recommends",
               "--no-suggests", "--no-conflicts", "--no-breaks", "--no-replaces", "--no-enhances",
               *names)
    return {line.strip() for line in deps.stdout.split("\n")
            if line and not line.startswith(" ") and not line.startswith("<")}


def needed_packages(binary, problems):
    """{package: [sonames]} of the binary's NEEDED libraries."""
    dynamic = run("readelf", "-d", binary).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic)
    if not needed:
        problems.append(f"no NEEDED entries in {binary} (readelf -d)")
    resolved = {}
    for line in run("ldd", binary).stdout.split("\n"):
        m = re.match(r"\s*(\S+) => (/\S+)", line)
        if m:
            resolved[m.group(1)] = m.group(2)
    packages = {}
    for soname in needed:
        path = resolved.get(soname)
        if not path:
            problems.append(f"ldd does not resolve {soname}")
            continue
        owner = run("dpkg", "-S", path)
        if owner.returncode != 0:  # merged /usr: the package may own the other spelling
            other = path[4:] if path.startswith("/usr/") else "/usr" + path
            owner = run("dpkg", "-S", other)
        if owner.returncode != 0:
            problems.append(f"no package owns {path} ({soname})")
            continue
        package = owner.stdout.split(":")[0].strip()
        packages.setdefault(package, []).append(soname)
    return packages


def main():
    containerfile, dockerignore, binary, keys_file, env_out = sys.argv[1:6]
    problems = []
    all_stages = stages(instructions(containerfile))
    if len(all_stages) < 2:
        problems.append("not multi-stage: fewer than two FROM")
        all_stages += [{"image": "", "name": None, "instrs": []}] * (2 - len(all_stages))
    build, final = all_stages[0], all_stages[-1]
    if build["image"] not in ("debian:12", "docker.io/library/debian:12"):
        problems.append(f"the build stage is FROM {build['image']}, not debian:12")
    if final["image"] not in ("debian:12-slim", "docker.io/library/debian:12-slim"):
        problems.append(f"the final stage is FROM {final['image']}, not debian:12-slim")

    def last(word):
        found = [args for w, args in final["instrs"] if w == word]
        return found[-1] if found else None

    names = {s["name"] for s in all_stages[:-1] if s["name"]}
    copies = [a for w, a in final["instrs"] if w == "COPY" and "--from=" in a]
    if not any(re.search(r"--from=(\S+)", a).group(1) in names for a in copies):
        problems.append("the final stage copies nothing from an earlier stage (COPY --from=...)")

    user = last("USER")
    uid = (user or "").split(":")[0]
    if user is None:
        problems.append("the final stage has no USER: it would run as root")
    elif not uid.isdigit():
        problems.append(f"USER {user}: use a fixed numeric UID (runAsNonRoot can check it)")
    elif int(uid) == 0:
        problems.append(f"USER {user} is root")

    health = last("HEALTHCHECK")
    if not health or health.upper().startswith("NONE") or "/readyz" not in health:
        problems.append(f"no HEALTHCHECK on /readyz in the final stage ({health})")
    volumes = " ".join(a for w, a in final["instrs"] if w == "VOLUME")
    if "/var/lib/certsteward" not in volumes:
        problems.append("no VOLUME /var/lib/certsteward in the final stage")
    if "8080" not in (last("EXPOSE") or ""):
        problems.append("no EXPOSE 8080")
    if (last("STOPSIGNAL") or "").upper() not in ("SIGTERM", "15"):
        problems.append("STOPSIGNAL is not SIGTERM")

    keys = [k.strip() for k in open(keys_file, encoding="utf-8") if k.strip()]
    env_names = {"CERTSTEWARD_" + k.replace(".", "_").upper() for k in keys}
    env = {}
    for word, args in final["instrs"]:
        if word == "ENV":
            env.update(dict(env_pairs(args)))
    for name, value in env.items():
        if not name.startswith("CERTSTEWARD_"):
            continue
        if name in SECRETS:
            problems.append(f"ENV {name}: a secret baked into the image (the deployer sets it)")
        elif name not in env_names and name not in NOT_CONFIG_KEYS:
            problems.append(f"ENV {name}: no configuration key of that name")
    listen = env.get("CERTSTEWARD_SERVER_LISTEN", "")
    if not listen.startswith("0.0.0.0:") and not listen.startswith("[::]:"):
        problems.append(f"CERTSTEWARD_SERVER_LISTEN={listen!r}: not every interface")
    if not env.get("CERTSTEWARD_STORE_URL", "").startswith("sqlite:///var/lib/certsteward/"):
        problems.append("CERTSTEWARD_STORE_URL: the SQLite store is not in the volume")
    with open(env_out, "w", encoding="utf-8") as f:
        for name, value in env.items():
            if name.startswith("CERTSTEWARD_"):
                f.write(f"{name}={value}\n")

    command = re.sub(r"^(--\S+\s+)*CMD\s+", "", health or "")
    if command.startswith("["):  # exec form
        command = shlex.join(json.loads(command))
    with open(env_out + ".health", "w", encoding="utf-8") as f:
        f.write(command + "\n")

    runtime = installed_packages(final)
    base = debian_base_closure()
    if "libc6" not in base:
        problems.append("could not compute the Debian base set (dpkg-query, apt-cache depends)")
    for package, sonames in sorted(needed_packages(binary, problems).items()):
        if package in SANITIZER_PACKAGES or package in runtime or package in base:
            continue
        problems.append(f"the final stage does not install {package} ({', '.join(sonames)})")
    for package, why in DATA_PACKAGES.items():
        if package not in runtime:
            problems.append(f"the final stage does not install {package} ({why})")
    tool = (health or "").split()
    if "curl" in tool and "curl" not in runtime:
        problems.append("the HEALTHCHECK uses curl, which the final stage does not install")
    named = sorted(runtime | installed_packages(build))
    candidates = dict(re.findall(r"^(\S+):\n\s+Installed: .*\n\s+Candidate: (.*)$",
                                 run("apt-cache", "policy", "libc6", *named).stdout, re.M))
    if candidates.get("libc6", "(none)") != "(none)":  # the package lists are there
        for package in named:
            if candidates.get(package, "(none)") == "(none)":
                problems.append(f"no Debian package {package}")

    ignored = {line.strip().strip("/") for line in open(dockerignore, encoding="utf-8")
               if line.strip() and not line.startswith("#")}
    for entry in ("build", "data", "ui/node_modules"):
        if entry not in ignored:
            problems.append(f".dockerignore does not exclude {entry}")

    for p in problems:
        print("FAIL:", p)
    print(f"checked {len(all_stages)} stages, {len(runtime)} runtime packages, "
          f"{len(env)} variables")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
