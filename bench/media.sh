#!/usr/bin/env bash
# Benchmark: /video/encode on the local engine against the same ffmpeg command run by hand.
# Generates a SECONDS-long HEIGHTp clip (ffmpeg's testsrc and a sine tone), then encodes it with
# the `web/mp4/720p` preset through `pipeline run` against one `pipeline serve`, and with the
# ffmpeg arguments that preset uses, RUNS times each; prints the best times, the ratio and the
# peak memory of the engine (which only supervises ffmpeg) and of ffmpeg. See bench/README.md.
#
# Environment:
#   SECONDS_LONG=20   clip length in seconds
#   HEIGHT=1080       clip height (16:9)
#   RUNS=3            runs per command (best time, largest peak memory)
#   BENCH_DIR=/tmp    where the temporary data folder is made
#   PIPELINE_BIN=...  binary to test; when unset, built as installed (.build/static)
#   SWIFT=swift       Swift driver used for that build
#   KEEP=1            keep the data folder instead of removing it
#   STRICT=1          exit 3 when a target is missed
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

SECONDS_LONG=${SECONDS_LONG:-20}
HEIGHT=${HEIGHT:-1080}
RUNS=${RUNS:-3}
for value in "$SECONDS_LONG" "$HEIGHT" "$RUNS"; do
    [[ $value =~ ^[0-9]+$ ]] || { echo "media.sh: SECONDS_LONG, HEIGHT and RUNS must be whole numbers" >&2; exit 2; }
done
command -v ffmpeg >/dev/null || { echo "media.sh: ffmpeg is not installed (scripts/setup.sh installs it)" >&2; exit 2; }
measure=(python3 -S "$repo/bench/measure.py")

script=media.sh
source "$repo/bench/lib.sh"
find_binary
machine_facts
echo "ffmpeg:  $(ffmpeg -hide_banner -version | head -1)"

make_work media

width=$((HEIGHT * 16 / 9 / 2 * 2))
echo
echo "== generating a ${SECONDS_LONG} s ${width}x${HEIGHT} clip"
mkdir -p "$work/clips" "$work/engine"
ffmpeg -nostdin -loglevel error -y -f lavfi -i "testsrc2=duration=$SECONDS_LONG:size=${width}x$HEIGHT:rate=30" \
    -f lavfi -i "sine=frequency=440:duration=$SECONDS_LONG" -c:v libx264 -preset ultrafast -crf 18 -pix_fmt yuv420p \
    -c:a aac -shortest "$work/clips/clip.mp4"
ls -l "$work/clips/clip.mp4" | awk '{ printf "clip: %.1f MB\n", $5 / 1e6 }'

start_engine "$work/engine"
cat >"$work/clips/media.yml" <<YAML
version: 1
name: media-bench
endpoint: http://127.0.0.1:$port
auth: {key: bench-key}
assemblies:
  encode:
    inputs: [clip.mp4]
    steps:
      web: {robot: /video/encode, use: ":original", preset: web/mp4/720p, result: true}
YAML

# The arguments the engine gives ffmpeg for this preset (Engine/Media/VideoEncodeRobot.swift).
baseline=(ffmpeg -nostdin -hide_banner -loglevel error -y -i "$work/clips/clip.mp4"
    -vf "scale=1280:720:force_original_aspect_ratio=decrease,pad=1280:720:(ow-iw)/2:(oh-ih)/2:black,scale=trunc(iw/2)*2:trunc(ih/2)*2,setsar=1"
    -c:v libx264 -pix_fmt yuv420p -preset veryfast -crf 23 -c:a aac -b:a 128k -movflags +faststart "$work/baseline.mp4")

echo
echo "== encoding ($RUNS runs each; name, seconds, peak MB, floor)"
for ((run = 1; run <= RUNS; run++)); do
    measure_once encode-run -- env TRANSLOADIT_SECRET=bench-unused "$bin" run "$work/clips/media.yml" --force
    measure_once encode-ffmpeg -- "${baseline[@]}"
done
engine_peak=$(engine_peak)
python3 - "$work/clips/results.json" <<'PY'
import json, sys
entry = json.load(open(sys.argv[1]))["assemblies"][0]
meta = entry["results"]["web"][0]["meta"]
assert entry["status"] == "ASSEMBLY_COMPLETED", entry
assert (meta["width"], meta["height"], meta["video_codec"]) == (1280, 720, "h264"), meta
print(f"verified: {meta['width']}x{meta['height']} {meta['video_codec']}/{meta['audio_codec']}, {meta['duration']} s")
PY

echo
echo "== results"
python3 - "$results" "$engine_peak" <<'PY'
import os, sys
best, peak = {}, {}
for line in open(sys.argv[1]):
    name, seconds, mb, floor = line.split()
    best[name] = min(best.get(name, 1e9), float(seconds))
    peak[name] = max(peak.get(name, 0), float(mb))
run, ffmpeg = best["encode-run"], best["encode-ffmpeg"]
print(f"{'case':<48} {'seconds':>8} {'peak MB':>8}")
print(f"{'pipeline run (/video/encode, web/mp4/720p)':<48} {run:>8.2f} {peak['encode-run']:>8.1f}  (runner)")
print(f"{'ffmpeg with the same arguments':<48} {ffmpeg:>8.2f} {peak['encode-ffmpeg']:>8.1f}")
print(f"engine peak (VmHWM, ffmpeg is its child and not counted): {sys.argv[2]} MB")
ratio = ffmpeg / run
ok = ratio >= 0.9
print(f"{'PASS' if ok else 'MISS'}  /video/encode through the engine at least 0.9x ffmpeg's own speed: {ratio:.2f}x")
if not ok and os.environ.get("STRICT") == "1":
    sys.exit(3)
PY
