#!/usr/bin/env bash
# Installs dist/'s packages on a Debian 12 that has never seen Swift and runs them there.
#
# A minbase bookworm is debootstrapped once and cached (DIST_CHECK_CACHE, default
# /var/cache/pipeline-dist-check), keyed by suite, variant, mirror, architecture and this recipe,
# and rebuilt when older than DIST_CHECK_CACHE_DAYS (default 7). Each run works on fresh copies:
#   deb      `apt-get install ./pipeline_VERSION_ARCH.deb` (which must bring its Depends and
#            Recommends from the mirror), then --version, the linked libraries against Depends,
#            Installed-Size, `pipeline init` and `pipeline run` of what it wrote (images and
#            media), `pipeline serve` with a tus upload to it, and `dpkg -r` (every file gone);
#            action.yml and the workflow init wrote checked against GitHub's schemas
#            (check-jsonschema), and the action's install and plan/run steps run there;
#   tarball  only the .deb's Depends installed with apt-get, the tarball unpacked: --version,
#            init, plan, serve with a tus upload; then the engine's tools and a run.
# Downloaded packages are kept in the cache too, so a second run needs the mirror only for the
# package lists. Prints PASS/FAIL lines, ends with "dist-check: N passed, N failed" and exits
# non-zero when anything failed. Needs root (debootstrap, chroot); run it with sudo otherwise.
# `scripts/dist-check.sh --prepare` makes the cached base and fetches the recommended packages
# only (no packages needed yet): `make test` runs it in the background while it builds.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1

dist="${DIST_DIR:-dist}"
cache="${DIST_CHECK_CACHE:-/var/cache/pipeline-dist-check}"
mirror="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
suite=bookworm
variant=minbase
max_age_days="${DIST_CHECK_CACHE_DAYS:-7}"
# Bump when the base system's recipe below changes: the cache key changes with it.
recipe=2

passed=0
failed=0
log="$dist/dist-check.log"
roots=()
serve_pid=""

pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
# check DESCRIPTION COMMAND...: PASS or FAIL by the command's status; its output goes to the log
# (and the end of it to the screen on failure). The command's standard input is check's (a
# terminal excepted). It runs in the background so that a signal is handled at once: the exit
# trap stops it (step_pid) before unmounting.
step_pid=""
check() {
    local what="$1" out status=0
    shift
    out="$(mktemp)"
    if [ -t 0 ]; then "$@" </dev/null >"$out" 2>&1 & else "$@" <&0 >"$out" 2>&1 & fi
    step_pid=$!
    wait "$step_pid" || status=$?
    step_pid=""
    if [ "$status" -eq 0 ]; then
        pass "$what"
    else
        fail "$what"
        tail -n 15 "$out" | sed 's/^/    /'
    fi
    { echo "== $what"; cat "$out"; } >>"$log"
    rm -f "$out"
}
finish() {
    echo "dist-check: $passed passed, $failed failed"
    exit $((failed > 0 ? 1 : 0))
}

mode="${1:-}"
if [ "$(id -u)" -ne 0 ]; then
    # Ahead of time (--prepare, in the background) only where sudo asks no password.
    sudo_flags=()
    if [ "$mode" = --prepare ]; then sudo_flags=(-n); fi
    if command -v sudo >/dev/null; then
        exec sudo "${sudo_flags[@]}" --preserve-env=DIST_DIR,DIST_CHECK_CACHE,DEBIAN_MIRROR,DIST_CHECK_CACHE_DAYS "$0" "$@"
    fi
    fail "the check needs root for debootstrap and chroot"
    finish
fi

mkdir -p "$cache"

# Everything mounted at or below a folder, deepest first.
mounts_below() { awk -v root="$1" '$2 == root || index($2, root "/") == 1 {print $2}' /proc/self/mounts | sort -r; }
# Unmounts what is mounted below a root, then removes it (never while anything is still mounted).
release_root() {
    local root="$1" mount
    for mount in $(mounts_below "$root"); do umount "$mount" 2>/dev/null || umount -l "$mount"; done
    if [ -n "$(mounts_below "$root")" ]; then
        echo "dist-check: warning: $root still has mounts; left in place" >&2
        return
    fi
    rm -rf --one-file-system "$root"
}
# A process and everything it started, by process id, deepest first.
process_tree() {
    local child
    for child in $(ps -o pid= --ppid "$1" 2>/dev/null); do process_tree "$child"; done
    echo "$1"
}
stop_tree() {
    local pids
    pids="$(process_tree "$1")"
    # shellcheck disable=SC2086
    kill -TERM $pids 2>/dev/null
    wait "$1" 2>/dev/null
}
cleanup() {
    if [ -n "$step_pid" ]; then stop_tree "$step_pid"; fi
    if [ -n "$serve_pid" ]; then stop_tree "$serve_pid"; fi
    local root
    for root in "${roots[@]}"; do release_root "$root"; done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- the base system, cached (one maker at a time: a check waits for a --prepare under way)
exec 9>"$cache/.base.lock"
flock 9
if ! command -v debootstrap >/dev/null; then
    echo "dist-check: installing debootstrap"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap >/dev/null
fi
arch="$(dpkg --print-architecture)"
key="$(printf '%s\n' "$suite" "$variant" "$mirror" "$arch" "$recipe" | sha256sum | cut -c1-16)"
base="$cache/base-$key"
if [ -f "$base/.complete" ] && [ -z "$(find "$base/.complete" -mtime +"$max_age_days")" ]; then
    echo "dist-check: using the cached $suite $variant system $base"
else
    for stale in "$cache"/base-*; do [ -e "$stale" ] && release_root "$stale"; done
    echo "dist-check: debootstrap --variant=$variant $suite into $base"
    started=$SECONDS
    if debootstrap --variant="$variant" --arch="$arch" "$suite" "$base.tmp" "$mirror" >"$cache/debootstrap.log" 2>&1; then
        # No service may start inside.
        printf '#!/bin/sh\nexit 101\n' >"$base.tmp/usr/sbin/policy-rc.d"
        chmod 755 "$base.tmp/usr/sbin/policy-rc.d"
        # A throwaway system: dpkg need not sync every file it unpacks (the installs take
        # minutes otherwise, waiting on the disk), and apt fetches no translations.
        echo force-unsafe-io >"$base.tmp/etc/dpkg/dpkg.cfg.d/unsafe-io"
        echo 'Acquire::Languages "none";' >"$base.tmp/etc/apt/apt.conf.d/99no-translations"
        touch "$base.tmp/.complete"
        mv "$base.tmp" "$base"
        pass "debootstrap --variant=$variant $suite ($((SECONDS - started)) s)"
    else
        fail "debootstrap --variant=$variant $suite (see $cache/debootstrap.log)"
        tail -n 15 "$cache/debootstrap.log" | sed 's/^/    /'
        release_root "$base.tmp"
        finish
    fi
fi
archives="$cache/archives"
mkdir -p "$archives"

# A fresh copy of the base with /proc mounted and the cached archives in place, in $made_root
# (not printed: `roots` must be this shell's, so that the exit trap unmounts it).
made_root=""
new_root() {
    made_root="$cache/run-$1-$$"
    release_root "$made_root"
    roots+=("$made_root")
    cp -a "$base" "$made_root"
    cp /etc/resolv.conf "$made_root/etc/resolv.conf"
    mount -t proc proc "$made_root/proc"
    mount -t tmpfs -o size=64m tmpfs "$made_root/dev/shm"
    cp -l "$archives"/*.deb "$made_root/var/cache/apt/archives/" 2>/dev/null \
        || cp "$archives"/*.deb "$made_root/var/cache/apt/archives/" 2>/dev/null
    mkdir -p "$made_root/home/check"
}
keep_archives() { cp -n "$1"/var/cache/apt/archives/*.deb "$archives/" 2>/dev/null; true; }
# in_root ROOT SCRIPT: runs SCRIPT with bash inside ROOT, in a clean environment, from /home/check.
# script_in ROOT [ARGS...]: the same with the script read from standard input.
chroot_env=(env -i HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LANG=C.UTF-8 TERM=dumb
    DEBIAN_FRONTEND=noninteractive)
in_root() { "${chroot_env[@]}" timeout 600 chroot "$1" /bin/bash -ec "cd /home/check; $2"; }
script_in() {
    local root="$1"
    shift
    "${chroot_env[@]}" timeout 600 chroot "$root" /bin/bash -e -s -- "$@"
}

# --prepare: the base system and the packages the .deb recommends (the large part of what its
# install downloads), fetched ahead while the binary builds (`make test` starts it in the
# background); the check itself then needs the mirror only for the package lists.
if [ "$mode" = --prepare ]; then
    missing=0
    for package in $(tr ',' ' ' <scripts/dist-recommends.txt); do
        compgen -G "$archives/${package}_*.deb" >/dev/null || missing=1
    done
    if [ "$missing" = 0 ]; then
        pass "the recommended packages are in $archives already"
        finish
    fi
    new_root prepare
    if in_root "$made_root" "apt-get update -qq && apt-get install -y -qq --download-only $(tr ',' ' ' <scripts/dist-recommends.txt)"; then
        keep_archives "$made_root"
        pass "the recommended packages are in $archives"
    else
        fail "downloading the recommended packages (the check downloads them itself)"
    fi
    finish
fi

tarball="$(ls "$dist"/pipeline-*-linux-*.tar.gz 2>/dev/null | tail -1)"
deb="$(ls "$dist"/pipeline_*.deb 2>/dev/null | tail -1)"
if [ -z "$tarball" ] || [ -z "$deb" ]; then
    fail "dist/ has a tarball and a .deb (make dist)"
    finish
fi
: >"$log"
version="$(dpkg-deb -f "$deb" Version)"
depends="$(dpkg-deb -f "$deb" Depends)"
recommends="$(dpkg-deb -f "$deb" Recommends)"
# The package names of a Depends-style field (versions and alternatives dropped), one a line.
names() { tr ',' '\n' <<<"$1" | sed -E 's/\|.*//; s/\(.*\)//; s/[[:space:]]//g' | grep -v '^$'; }
check "SHA256SUMS matches both packages" bash -c "cd '$dist' && sha256sum -c SHA256SUMS"


# ---- checks both installs share (PIPELINE: the program's path inside the root, LABEL: deb or tarball)
check_toolchain_free() {
    local root="$1" pipeline="$2" label="$3"
    check "$label: no Swift toolchain on the system" in_root "$root" \
        "! command -v swift && ! command -v swiftc && ! ls /opt/* 2>/dev/null"
    check "$label: every linked library resolves, none from Swift or /opt" in_root "$root" \
        "ldd $pipeline >/tmp/ldd; cat /tmp/ldd; ! grep -E 'not found|libswift|libFoundation|libdispatch|/opt/' /tmp/ldd"
    check "$label: pipeline --version prints 'pipeline $version'" in_root "$root" \
        "$pipeline --version | tee /dev/stderr | grep -qx 'pipeline $version'"
}

# check_results RESULTS DOWNLOADS PROJECT (host paths): only completed Assemblies, and every result
# file listed was downloaded below DOWNLOADS, at its local_path (from PROJECT, the manifest's folder),
# with its size; images are what their type says, decode, and have the dimensions the results give;
# audio and video decode and have a duration.
check_results() {
    python3 - "$1" "$2" "$3" <<'EOF'
import json, os, subprocess, sys
results, downloads, project = sys.argv[1], sys.argv[2], sys.argv[3]
assemblies = json.load(open(results))["assemblies"]
assert assemblies, "no Assembly in the results"
magic = {"image/png": b"\x89PNG\r\n\x1a\n", "image/jpeg": b"\xff\xd8\xff"}
def decodes(path):
    run = subprocess.run(["ffmpeg", "-v", "error", "-xerror", "-i", path, "-f", "null", "-"], capture_output=True, text=True)
    assert run.returncode == 0 and not run.stderr.strip(), f"{path} does not decode: {run.stderr}"
def probe(path, entries):
    run = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", entries, "-of", "csv=p=0", path]
                         if entries.startswith("stream") else
                         ["ffprobe", "-v", "error", "-show_entries", entries, "-of", "csv=p=0", path], capture_output=True, text=True)
    assert run.returncode == 0, f"{path}: {run.stderr}"
    return run.stdout.strip()
count = 0
for assembly in assemblies:
    assert assembly["status"] == "ASSEMBLY_COMPLETED", (assembly["job"], assembly["status"])
    for step, items in assembly["results"].items():
        for item in items:
            local = os.path.join(project, item.get("local_path", "-"))
            assert os.path.realpath(local).startswith(os.path.realpath(downloads) + "/"), f"{step}: {item['name']} has no local_path below {downloads}: {item}"
            paths = [local] if os.path.isfile(local) and os.path.getsize(local) == item["size"] else []
            assert paths, f"{step}: {item['name']} ({item['size']} bytes) was not downloaded to {local}"
            path, mime = paths[0], item["mime"]
            if mime.startswith("image/"):
                assert mime in magic, f"{path}: unexpected type {mime}"
                assert open(path, "rb").read(8).startswith(magic[mime]), f"{path} is not {mime}"
                width, height = map(int, probe(path, "stream=width,height").split(",")[:2])
                meta = item.get("meta", {})
                assert (width, height) == (meta.get("width"), meta.get("height")), f"{path}: {width}x{height}, results say {meta}"
                decodes(path)
            elif mime.split("/")[0] in ("audio", "video"):
                assert float(probe(path, "format=duration")) > 0, f"{path}: no duration"
                decodes(path)
            count += 1
            print(f"ok {assembly['job']} {step} {path} {mime} {item['size']} bytes")
assert count, "no result files"
EOF
}

# check_serve ROOT PIPELINE LABEL: serve on a free port, a tus upload to it in 256 KiB requests
# (POST, then PATCHes), the upload's offset and bytes checked from outside, a clean stop on SIGTERM.
check_serve() {
    local root="$1" pipeline="$2" label="$3" url="" upload="" status=0
    head -c 1048577 /dev/urandom >"$root/home/check/upload.bin"
    "${chroot_env[@]}" chroot "$root" "$pipeline" serve --port 0 --data-dir /home/check/engine >"$root/home/check/serve.log" 2>&1 &
    serve_pid=$!
    for _ in $(seq 50); do
        url="$(sed -n 's/^tus endpoint: //p' "$root/home/check/serve.log")"
        [ -n "$url" ] && break
        sleep 0.2
    done
    if [ -z "$url" ]; then
        fail "$label: pipeline serve prints its tus endpoint"
        sed 's/^/    /' "$root/home/check/serve.log"
        kill "$serve_pid" 2>/dev/null
        wait "$serve_pid" 2>/dev/null
        serve_pid=""
        return
    fi
    pass "$label: pipeline serve listens ($url)"
    check "$label: pipeline upload hands a file to serve on this machine" in_root "$root" \
        "$pipeline upload upload.bin --endpoint $url --state-dir /home/check/handed --json > handed.json; grep -q '\"size\": 1048577' handed.json"
    check "$label: ...as an open file: no request carried its bytes" bash -c \
        "! grep -E '^(PATCH|POST) /resumable/files/' '$root/home/check/serve.log'"
    check "$label: pipeline upload sends a file to serve over tus" in_root "$root" \
        "$pipeline upload upload.bin --endpoint $url --chunk-size 256KiB --no-handoff --state-dir /home/check/uploads --json > upload.json; cat upload.json"
    upload="$(sed -n 's/.*"url": "\(.*\)".*/\1/p' "$root/home/check/upload.json" 2>/dev/null)"
    check "$label: serve holds the whole upload (HEAD Upload-Offset, the same bytes)" \
        bash -s "$upload" "$root/home/check" <<'EOF'
set -e
upload="$1" home="$2"
[ -n "$upload" ]
curl -sfI -H 'Tus-Resumable: 1.0.0' "$upload" | tr -d '\r' | tee /dev/stderr | grep -qx 'Upload-Offset: 1048577'
stored="$(find "$home/engine" -name "${upload##*/}*" -size 1048577c | head -1)"
cmp "$stored" "$home/upload.bin"
EOF
    check "$label: the upload went in several PATCH requests" bash -c \
        "grep 'PATCH /resumable/files/' '$root/home/check/serve.log' | wc -l | tee /dev/stderr | { read -r n; [ \"\$n\" -ge 3 ]; }"
    kill -TERM "$serve_pid"
    wait "$serve_pid" || status=$?
    serve_pid=""
    check "$label: serve stops cleanly on SIGTERM (exit status $status)" test "$status" -eq 0
}

# check_init_and_run ROOT PIPELINE LABEL KIND: init in a fresh folder, what it wrote, and a run of
# it with its results checked; a second run is all cached.
check_init_and_run() {
    local root="$1" pipeline="$2" label="$3" kind="$4"
    check "$label: pipeline init --kind $kind writes a project" in_root "$root" \
        "$pipeline init $kind --kind $kind; cd $kind; ls -d pipeline.yml policy.yml .github/workflows/pipeline.yml .gitignore samples/*"
    if [ "$kind" = images ]; then
        # A JPEG beside init's PNG samples: the manifest's inputs take it, and jpegtran optimises it.
        check "$label: a JPEG added to the samples (with the recommended ffmpeg)" in_root "$root" \
            "cd images; ffmpeg -nostdin -v error -i samples/ocean.png -q:v 3 samples/photo.jpg"
    fi
    check "$label: pipeline validate and plan of what init wrote" in_root "$root" \
        "cd $kind; $pipeline validate pipeline.yml; $pipeline plan pipeline.yml"
    check "$label: pipeline run of what init wrote" in_root "$root" "cd $kind; $pipeline run pipeline.yml"
    check "$label: the $kind results are completed, downloaded and valid files" \
        check_results "$root/home/check/$kind/build/results.json" "$root/home/check/$kind/build" "$root/home/check/$kind"
    check "$label: a second run processes nothing again" in_root "$root" \
        "cd $kind; $pipeline run pipeline.yml 2>&1 | tee /dev/stderr | grep -q ' 0 completed, [1-9][0-9]* cached, 0 failed'"
}

# ---- the .deb
echo "dist-check: the .deb, $deb"
new_root deb
root="$made_root"
check "deb: apt-get update ($suite)" in_root "$root" "apt-get update -qq"
cp "$deb" "$root/home/check/"
started=$SECONDS
check "deb: apt-get install ./$(basename "$deb") brings its dependencies" in_root "$root" \
    "apt-get install -y -q ./$(basename "$deb")"
echo "dist-check: apt-get install took $((SECONDS - started)) s"
keep_archives "$root"
for package in $(names "$depends"); do
    check "deb: Depends $package is installed" in_root "$root" "dpkg-query -W -f='\${Status}' $package | grep -q 'install ok installed'"
done
for package in $(names "$recommends"); do
    check "deb: Recommends $package is installed" in_root "$root" "dpkg-query -W -f='\${Status}' $package | grep -q 'install ok installed'"
done
check_toolchain_free "$root" /usr/bin/pipeline deb
check "deb: a machine-readable copyright file naming the licences" in_root "$root" \
    "head -1 /usr/share/doc/pipeline/copyright | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
        && grep -q '^License: Expat\$' /usr/share/doc/pipeline/copyright && grep -q '^ Permission is hereby granted' /usr/share/doc/pipeline/copyright"
# The binary's NEEDED entries (read here, where readelf is), resolved inside with ldd, give
# through dpkg -S exactly the Depends' packages.
needed="$(readelf -d "$root/usr/bin/pipeline" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')"
# shellcheck disable=SC2086
check "deb: Depends is exactly the packages of the linked libraries" \
    script_in "$root" "$(names "$depends" | sort -u | tr '\n' ' ')" $needed <<'EOF'
wanted="$1"
shift
# dpkg knows a file by the path its package ships, which merged /usr may hide behind a link.
owner() {
    local path
    for path in "$1" "/usr$1" "${1#/usr}" "$(readlink -f "$1")"; do
        if dpkg -S "$path" >/tmp/owner 2>/dev/null; then cut -d: -f1 /tmp/owner | head -1; return; fi
    done
    echo "no package holds $1" >&2
    return 1
}
for soname in "$@"; do
    path="$(ldd /usr/bin/pipeline | awk -v so="$soname" '$1 == so && $2 == "=>" {print $3} $1 ~ ("/" so "$") {print $1}' | head -1)"
    case "$path" in /*) ;; *) echo "$soname does not resolve" >&2; exit 1 ;; esac
    package="$(owner "$path")"
    echo "$soname -> $path -> $package" >&2
    echo "$package"
done | sort -u | tr '\n' ' ' >/tmp/linked
echo "linked:  $(cat /tmp/linked)"
echo "Depends: $wanted"
[ "$(cat /tmp/linked)" = "$wanted" ]
EOF
check "deb: the libvips the engine opens with dlopen is installed" script_in "$root" <<'EOF'
soname="$(grep -ao 'libvips\.so\.[0-9][0-9]*' /usr/bin/pipeline | head -1)"
[ -n "$soname" ]
ldconfig -p | grep -F "$soname ("
EOF
check "deb: files in their Debian places" in_root "$root" \
    "ls /usr/bin/pipeline /usr/share/man/man1/pipeline.1.gz /usr/share/bash-completion/completions/pipeline \
        /usr/share/zsh/vendor-completions/_pipeline /usr/share/fish/vendor_completions.d/pipeline.fish \
        /usr/share/pipeline/schemas/manifest.schema.json /usr/share/pipeline/schemas/policy.schema.json"
check "deb: the manual page is pipeline help --man" in_root "$root" \
    "zcat /usr/share/man/man1/pipeline.1.gz | cmp - <(pipeline help --man)"
check "deb: the bash completion loads" in_root "$root" \
    "source /usr/share/bash-completion/completions/pipeline; complete -p pipeline"
check "deb: Installed-Size matches the installed files" script_in "$root" <<'EOF'
declared="$(dpkg-query -W -f='${Installed-Size}' pipeline)"
counted="$(dpkg -L pipeline | while read -r path; do
    if [ -f "$path" ] && [ ! -L "$path" ]; then echo $((($(stat -c %s "$path") + 1023) / 1024)); else echo 1; fi
done | awk '{kib += $1} END {print kib}')"
echo "declared $declared KiB, counted $counted KiB (the difference is the control files)"
[ $((declared - counted)) -ge 0 ] && [ $((declared - counted)) -le 8 ]
EOF
timing="$(in_root "$root" 'TIMEFORMAT=%R; for i in 1 2 3 4 5; do { time pipeline --version >/dev/null 2>&1; } 2>&1; done' 2>/dev/null | sort -n | head -1)"
[[ "$timing" =~ ^[0-9.]+$ ]] && echo "dist-check: pipeline --version takes $timing s (best of 5)"
check_init_and_run "$root" pipeline deb images
check_init_and_run "$root" pipeline deb media
check_serve "$root" /usr/bin/pipeline deb
# The GitHub Action and the workflow init wrote: valid for GitHub's schemas, and the workflow
# installs pipeline with the action in both of its jobs.
jsonschema=.venv/bin/check-jsonschema
workflow="$root/home/check/images/.github/workflows/pipeline.yml"
check "action.yml is a valid GitHub Action" "$jsonschema" --builtin-schema vendor.github-actions action.yml
check "the workflow init wrote is a valid GitHub workflow" "$jsonschema" --builtin-schema vendor.github-workflows "$workflow"
check "the workflow installs pipeline with the action in both jobs" \
    bash -c "grep -cE '^      - uses: [A-Za-z0-9_.-]+/pipeline@v[0-9]+\$' '$workflow' | tee /dev/stderr | grep -qx 2"
in_root "$root" "dpkg -L pipeline" >"$root/tmp/pipeline.files" 2>/dev/null
check "deb: dpkg -r pipeline" in_root "$root" "dpkg -r pipeline"
check "deb: no file of the package is left" script_in "$root" <<'EOF'
! command -v pipeline
left=0
while read -r path; do
    if [ -f "$path" ] || [ -L "$path" ]; then echo "left: $path"; left=1; fi
done </tmp/pipeline.files
[ "$(wc -l </tmp/pipeline.files)" -gt 10 ] && [ "$left" -eq 0 ]
EOF
# The action's own steps on this system: install from the .deb by path, then plan with the
# Markdown summary (what the workflow's jobs do on a runner).
mkdir -p "$root/home/check/action/scripts"
cp action.yml "$root/home/check/action/"
cp scripts/action-install.sh scripts/action-command.sh "$root/home/check/action/scripts/"
check "action: its install step installs the .deb and reports the version" in_root "$root" \
    "RUNNER_TEMP=/tmp GITHUB_OUTPUT=/tmp/output PIPELINE_DEB_URL=/home/check/$(basename "$deb") PIPELINE_ENGINE_TOOLS=false \
        action/scripts/action-install.sh; grep -x 'version=$version' /tmp/output; command -v pipeline"
check "action: its plan step writes the plan as Markdown to the step summary" in_root "$root" \
    "cd images; GITHUB_STEP_SUMMARY=/tmp/summary PIPELINE_COMMAND=plan ../action/scripts/action-command.sh >/dev/null
        cat /tmp/summary; grep -q '^### Plan for' /tmp/summary; grep -q '^| job |' /tmp/summary"
check "action: its run step runs the manifest after the summary" in_root "$root" \
    "cd images; GITHUB_STEP_SUMMARY=/tmp/summary PIPELINE_COMMAND=run ../action/scripts/action-command.sh
        [ \$(grep -c '^### Plan for' /tmp/summary) -eq 2 ]"
release_root "$root"

# ---- the tarball
echo "dist-check: the tarball, $tarball"
new_root tarball
root="$made_root"
top="$(basename "$tarball" .tar.gz)"
bin="/home/check/$top/bin/pipeline"
check "tarball: apt-get update ($suite)" in_root "$root" "apt-get update -qq"
check "tarball: apt-get install of the .deb's Depends only" in_root "$root" \
    "apt-get install -y -q --no-install-recommends $(names "$depends" | tr '\n' ' ')"
keep_archives "$root"
cp "$tarball" "$root/home/check/"
check "tarball: one top folder, $top/" bash -c "tar -tzf '$tarball' | cut -d/ -f1 | sort -u | tee /dev/stderr | grep -qx '$top'"
check "tarball: the binary, manual page, completions, schemas, README and docs" in_root "$root" \
    "tar -xzf $(basename "$tarball"); cd $top; ls bin/pipeline share/man/man1/pipeline.1 share/bash-completion/completions/pipeline \
        share/zsh/site-functions/_pipeline share/fish/vendor_completions.d/pipeline.fish share/pipeline/schemas/manifest.schema.json README.md docs/security.md"
check "tarball: the MIT licence, $top/LICENSE" bash -c "tar -xzOf '$tarball' '$top/LICENSE' | grep -q '^MIT License'"
check_toolchain_free "$root" "$bin" tarball
check "tarball: pipeline init and plan with only the Depends" in_root "$root" "$bin init site; cd site; $bin plan pipeline.yml"
check_serve "$root" "$bin" tarball
check "tarball: apt-get install of the engine's tools (the .deb's Recommends)" in_root "$root" \
    "apt-get install -y -q --no-install-recommends $(names "$recommends" | tr '\n' ' ')"
keep_archives "$root"
check_init_and_run "$root" "$bin" tarball images
release_root "$root"

finish
