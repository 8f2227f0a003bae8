#!/usr/bin/env bash
# Client-side instructions per request (callgrind) of raw URLSession against Courier over
# URLSessionTransport, and of prototype variants of the transport (issue 13 §5). Deterministic
# to ~0.2 % from run to run, unlike CPU time on a shared machine.
#
#   Scripts/callgrind-urlsession.sh [INFLIGHT] [VARIANTS...]
#       INFLIGHT  requests in flight (default 1: sequential)
#       VARIANTS  default: raw courier a1 a2 a3 a4 a5
#
# Variants (GET /users, 982-byte JSON array of 10 users, decoded with JSONDecoder):
#   raw      URLSession(configuration: URLSessionTransport.defaultConfiguration()) + data(for:) + JSONDecoder
#   courier  APIClient + URLSessionTransport() (the delegate/TaskHandler path) + send
#   a1       collected bodies through dataTask(with:completionHandler:) on the transport's own
#            (delegate) session, with the same deadline timer and cancellation
#   a2       the delegate OperationQueue given an underlyingQueue (a serial DispatchQueue)
#   a3       a1 on a second, delegate-less session
#   a4       `try await data(for:)` on a delegate-less session (no watchdog)
#   a5       `data(for:delegate:)` on a delegate-less session with a redirect-refusing task delegate
# The prototypes are Scripts/callgrind-urlsession/probe.patch (a USProbe executable and a
# `URLSessionTransport.probeMode` switch), made against commit BASE below; the script applies it
# to a throw-away clone of that commit in $WORK, so the working tree is never touched.
# The server (Scripts/callgrind-urlsession/server.py, Python, HTTP/1.1 keep-alive) runs in its
# own process: only the client is counted. Each figure is
#   (instructions of 50 warm-up + 600 requests − 50 warm-up + 200 requests) / 400.
# The probe also checks behaviour:  usprobe redirect-a0|a1|a3|a4|a5 PORT 0 0 1  (302 handling),
# limit-aN (1 MB body over a 100 kB limit), timeout-fast|timeout-slow PORT MS 0 1 (deadline).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
BASE=c557ebf
WORK="${WORK:-/tmp/courier-callgrind-urlsession}"
INFLIGHT="${1:-1}"; shift || true
VARIANTS=("$@"); [ ${#VARIANTS[@]} -eq 0 ] && VARIANTS=(raw courier a1 a2 a3 a4 a5)
export SWIFT_DETERMINISTIC_HASHING=1

command -v valgrind >/dev/null || { echo "install valgrind (apt-get install -y valgrind)" >&2; exit 1; }
if [ ! -d "$WORK/.git" ]; then
    git clone -q "$REPO" "$WORK"
    git -C "$WORK" checkout -q "$BASE"
    git -C "$WORK" apply "$HERE/callgrind-urlsession/probe.patch"
    # Reuse the main tree's resolved dependencies (no network needed).
    mkdir -p "$WORK/.build"
    cp -a "$REPO/.build/checkouts" "$REPO/.build/repositories" "$REPO/.build/workspace-state.json" "$WORK/.build/" 2>/dev/null || true
    cp "$REPO/Package.resolved" "$WORK/" 2>/dev/null || true
fi
LOCK=""; command -v flock >/dev/null && LOCK="flock /tmp/courier-build.lock"
(cd "$WORK" && $LOCK swift build -c release --product usprobe --disable-automatic-resolution >&2)
BIN="$WORK/.build/x86_64-unknown-linux-gnu/release/usprobe"
# valgrind 3.19 cannot read the DWARF 5 Swift 6 emits: strip debug info (symbols stay).
STRIPPED="$(mktemp /tmp/usprobe-stripped.XXXXXX)"
objcopy --strip-debug "$BIN" "$STRIPPED"; chmod +x "$STRIPPED"
coproc SERVER { python3 "$HERE/callgrind-urlsession/server.py"; }
SERVER_PID=$SERVER_PID
trap 'kill $SERVER_PID 2>/dev/null || true; rm -f "$STRIPPED"' EXIT
read -r PORT <&"${SERVER[0]}"

instructions() {  # instructions VARIANT COUNT
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$STRIPPED" "$1" "$PORT" 50 "$2" "$INFLIGHT" 2>&1 \
        | awk '/Collected/ { print $4 }'
}
declare -A I
printf '| %-8s | %12s | %8s |\n' variant "instr./req" "÷ raw"
printf '| %-8s | %12s | %8s |\n' --- ---: ---:
for v in "${VARIANTS[@]}"; do
    small=$(instructions "$v" 200); large=$(instructions "$v" 600)
    I[$v]=$(( (large - small) / 400 ))
    ratio="-"; [ -n "${I[raw]:-}" ] && ratio=$(awk -v a="${I[$v]}" -v b="${I[raw]}" 'BEGIN { printf "%.3f", a / b }')
    printf '| %-8s | %12s | %8s |\n' "$v" "${I[$v]}" "$ratio"
done
