#!/usr/bin/env bash
# Builds what a machine without Swift installs, into dist/:
#   pipeline-VERSION-linux-ARCH.tar.gz  one top folder: bin/, share/ (manual page, completions for
#                                       bash, zsh and fish, JSON schemas), README.md, docs/, LICENSE
#   pipeline_VERSION_DEBARCH.deb        the same files in their Debian places, built with dpkg-deb
#   SHA256SUMS                          of both (`sha256sum -c SHA256SUMS` in dist/)
# The binary is the release build with the Swift standard library and Foundation linked in
# (--static-swift-stdlib) and no $ORIGIN run path, so it needs no file of the toolchain; what it
# still links is system libraries, and the .deb's Depends is derived from them by dpkg-shlibdeps.
# VERSION is what the binary prints for --version: the package cannot disagree with it.
# The build has its own scratch folder (DIST_SCRATCH, default .build-dist), apart from .build.
set -euo pipefail
cd "$(dirname "$0")/.."

SWIFT="${SWIFT:-swift}"
MAKE="${MAKE:-make}"
scratch="${DIST_SCRATCH:-.build-dist}"
out="${DIST_DIR:-dist}"
maintainer="${DEB_MAINTAINER:-pipeline maintainers <maintainers@example.com>}"
# libvips is loaded with dlopen by the engine (Sources/CVips/shim.h), so no tool can see it in the
# binary. The shim names the soname; its package is looked up below. 8.12 is the oldest libvips
# with the loaders' `fail_on` option, which every image the engine opens is given.
vips_minimum="8.12"
# The programs the engine's robots run (Sources/Engine: ffmpeg and ffprobe, jpegtran, optipng,
# exiftool) and the CA certificates HTTPS needs: recommended, so a plain `apt-get install` brings
# them and `--no-install-recommends` makes a runner-only install. dist-check fetches them ahead.
recommends_tools="$(cat scripts/dist-recommends.txt)"

fail() { echo "dist: error: $*" >&2; exit 1; }

build=("$SWIFT" build -c release --static-swift-stdlib --disable-local-rpath --product pipeline --scratch-path "$scratch")
echo "dist: ${build[*]}"
"${build[@]}"
built="$("${build[@]}" --show-bin-path)/pipeline"
[ -x "$built" ] || fail "no binary at $built"

# The binary must not need the toolchain: no Swift library, no run path, nothing resolved from
# the toolchain's folders.
# The toolchain's shared Swift libraries: /opt/swift/usr/lib/swift here, /usr/lib/swift in Swift's images.
swift_libraries="$(dirname "$(dirname "$(readlink -f "$(command -v "$SWIFT")")")")/lib/swift"
needed="$(readelf -d "$built" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')"
if grep -E '^lib(swift|Foundation|dispatch|BlocksRuntime|_FoundationICU)' <<<"$needed"; then
    fail "the binary links a Swift library (above)"
fi
if readelf -d "$built" | grep -E '\((RPATH|RUNPATH)\)'; then
    fail "the binary has a run path (above)"
fi
if ldd "$built" | grep -E "not found|=> $swift_libraries/|=> /opt/"; then
    fail "the binary resolves libraries from the toolchain or not at all (above)"
fi

version="$("$built" --version | awk 'NR == 1 {print $NF}')"
[[ "$version" =~ ^[0-9][A-Za-z0-9.+~-]*$ ]] || fail "'$built --version' printed no usable version: $version"
arch="$(uname -m)"
debarch="$(dpkg --print-architecture)"
top="pipeline-$version-linux-$arch"
tarball="$top.tar.gz"
deb="pipeline_${version}_$debarch.deb"
# One time for every file, so the same commit gives the same packages.
export SOURCE_DATE_EPOCH="${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}"

mkdir -p "$out"
rm -rf "$out/work" "$out"/pipeline-*.tar.gz "$out"/pipeline_*.deb "$out/SHA256SUMS"
work="$out/work"
mkdir -p "$work"
# Stripped as Debian strips programs: the symbol and debug sections are most of the size.
stripped="$work/pipeline"
strip --remove-section=.comment --remove-section=.note -o "$stripped" "$built"

if [ ! -f LICENSE ]; then
    echo "dist: the repository has no LICENSE file; packages are not made without one" >&2
    exit 1
fi

# The tarball: installed with the same recipe as `make install`, into one top folder.
"$MAKE" --no-print-directory install-files PIPELINE_BIN="$stripped" DESTDIR="$work/tar" PREFIX="/$top" >/dev/null
cp README.md LICENSE "$work/tar/$top/"
cp -R docs "$work/tar/$top/docs"

# The .deb's tree.
root="$work/deb"
"$MAKE" --no-print-directory install-files PIPELINE_BIN="$stripped" DESTDIR="$root" PREFIX=/usr \
    ZSH_COMPLETIONS=share/zsh/vendor-completions >/dev/null
gzip -9n "$root/usr/share/man/man1/pipeline.1"
install -d "$root/usr/share/doc/pipeline"
install -m 644 README.md "$root/usr/share/doc/pipeline/README.md"
install -d "$root/usr/share/doc/pipeline/docs"
install -m 644 docs/*.md "$root/usr/share/doc/pipeline/docs/"
# The copyright file in Debian's machine-readable format (DEP-5): the project's MIT licence
# ("Expat" in Debian's names), and the Swift runtime linked into the binary.
{
    printf 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n'
    printf 'Upstream-Name: pipeline\n\n'
    printf 'Files: *\n'
    printf 'Copyright: %s\n' "$(sed -n 's/^Copyright (c) //p' LICENSE)"
    printf 'License: Expat\n\n'
    printf 'Files: usr/bin/pipeline\n'
    printf 'Copyright: %s\n' "$(sed -n 's/^Copyright (c) //p' LICENSE)"
    printf '           Apple Inc. and the Swift project authors (the Swift runtime and Foundation, linked in)\n'
    printf 'License: Expat and Apache-2.0 with Swift Runtime Library Exception\n\n'
    printf 'License: Expat\n'
    # The licence's text after its title and copyright line, each line indented, blank lines as " .".
    sed -n '/^Permission/,$p' LICENSE | sed 's/^$/./; s/^/ /'
    printf '\nLicense: Apache-2.0 with Swift Runtime Library Exception\n'
    printf ' The Swift runtime and Foundation are licensed under the Apache License 2.0\n'
    printf ' with the Runtime Library Exception: https://swift.org/LICENSE.txt\n'
    printf ' .\n'
    printf ' On Debian systems, the full text of the Apache License 2.0 can be found in\n'
    printf ' /usr/share/common-licenses/Apache-2.0.\n'
} > "$root/usr/share/doc/pipeline/copyright"
chmod 644 "$root/usr/share/doc/pipeline/copyright"
install -d "$root/DEBIAN"

# Depends: the packages of the libraries the binary links, with the versions their symbols need.
# dpkg-shlibdeps reads a debian/control, so it runs in a folder that has a minimal one.
shlibs="$work/shlibs"
mkdir -p "$shlibs/debian"
printf 'Source: pipeline\n\nPackage: pipeline\nArchitecture: any\n' > "$shlibs/debian/control"
binary="$(readlink -f "$root/usr/bin/pipeline")"
depends="$(cd "$shlibs" && dpkg-shlibdeps -O -e"$binary" | sed -n 's/^shlibs:Depends=//p')"
[ -n "$depends" ] || fail "dpkg-shlibdeps found no dependency"
rm -rf "$shlibs"

# Recommends: the package that holds the soname the engine opens, and the robots' programs.
# Suggests: libpq5, which `serve --state postgres://` opens (engines sharing their state).
vips_soname="$(sed -n 's/^#define PIPELINE_VIPS_LIBRARY "\(.*\)"$/\1/p' Sources/CVips/shim.h)"
[ -n "$vips_soname" ] || fail "no PIPELINE_VIPS_LIBRARY in Sources/CVips/shim.h"
vips_path="$(ldconfig -p | awk -v name="$vips_soname" '$1 == name {print $NF; exit}')"
[ -n "$vips_path" ] || fail "$vips_soname is not installed here (scripts/setup.sh installs libvips42)"
vips_package="$(dpkg -S "$(readlink -f "$vips_path")" 2>/dev/null | head -1 | cut -d: -f1)"
[ -n "$vips_package" ] || fail "no package holds $vips_path"
recommends="$vips_package (>= $vips_minimum), $recommends_tools"

find "$root" "$work/tar" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +
(cd "$root" && find usr -type f | LC_ALL=C sort | xargs md5sum) > "$root/DEBIAN/md5sums"
# Installed-Size as dpkg-gencontrol counts it: every file's size rounded up to a KiB, one KiB for
# every other entry (folders, links).
installed_size="$(find "$root" -mindepth 1 -printf '%y %s\n' | awk '$1 == "f" {kib += int(($2 + 1023) / 1024); next} {kib += 1} END {print kib}')"

cat > "$root/DEBIAN/control" <<EOF
Package: pipeline
Version: $version
Architecture: $debarch
Maintainer: $maintainer
Installed-Size: $installed_size
Depends: $depends
Recommends: $recommends
Suggests: libpq5
Section: utils
Priority: optional
Description: declarative file processing with the Transloadit Assembly API
 pipeline runs a YAML manifest of processing steps: it batches files into
 Transloadit-compatible Assemblies, signs them, uploads the files over the tus
 resumable upload protocol and writes the result URLs to a JSON file.
 "pipeline plan" shows what would run, and "pipeline serve" is a local engine
 speaking the same API, so manifests also run offline.
 .
 The recommended packages are the programs the local engine runs: libvips
 for images and PDF pages, ffmpeg for audio and video, jpegtran and optipng
 for lossless optimising, exiftool for metadata.
EOF
touch -d "@$SOURCE_DATE_EPOCH" "$root/DEBIAN/md5sums" "$root/DEBIAN/control"

dpkg-deb --root-owner-group -Zxz --build "$root" "$out/$deb" >/dev/null
tar -C "$work/tar" --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$SOURCE_DATE_EPOCH" -cf - "$top" \
    | gzip -9n > "$out/$tarball"
(cd "$out" && sha256sum "$tarball" "$deb" > SHA256SUMS)
rm -rf "$work"

echo "dist: $out/$tarball ($(du -h "$out/$tarball" | cut -f1))"
echo "dist: $out/$deb ($(du -h "$out/$deb" | cut -f1), Installed-Size $installed_size KiB)"
echo "dist: Depends: $depends"
echo "dist: Recommends: $recommends"
echo "dist: $out/SHA256SUMS"
