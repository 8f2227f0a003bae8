#!/usr/bin/env bash
# Courier's own instructions per request, stage by stage, counted with callgrind over a stub
# transport (no network, no event loop; JSON decoding excluded). Reproducible to a few hundred
# instructions from run to run, unlike CPU time.
#
#   Scripts/callgrind-stages.sh [path/to/courier-bench] [--network]
#
# Without a path it builds the release courier-bench (under /tmp/courier-build.lock when
# flock is available). Installs valgrind with apt-get when it is missing.
#
# Each `--micro` path does one more stage than the one before; every figure is
# (instructions of a run of 3000 requests − a run of 1000) / 2000, so start-up cancels out:
#   stub     the stub transport's own send (subtracted, not Courier's)
#   build    prepare: the request built into its HTTPRequest head
#   open     stream(for:): + request context, middleware chain (none), redirect follower,
#            transport call, status check
#   data     data(for:): + the body collected into Data under the size limit
#   courier  send: + decoding through the request's decode (JSONDecoder included)
#   decode   a bare JSONDecoder on the same bytes (subtracted)
#   middleware  send with logging (info, dropped), retry and bearer auth
# With --network, the same network scenarios as courier-bench (AsyncHTTPClient, URLSession,
# raw vs Courier, same configuration and defaults) are counted too, against a server started
# here; the difference Courier − raw there is Courier's cost including its transport glue.
set -euo pipefail
cd "$(dirname "$0")/.."
# Also read by the Swift runtime: Hasher seeds are fixed, so dictionary work (JSONDecoder's,
# Courier's) costs the same instructions from run to run.
export SWIFT_DETERMINISTIC_HASHING=1

BIN=""
NETWORK=0
for argument in "$@"; do
    case "$argument" in
        --network) NETWORK=1 ;;
        *) BIN="$argument" ;;
    esac
done

if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind is missing; installing it with apt-get" >&2
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get install -y valgrind >&2 || { $SUDO apt-get update >&2 && $SUDO apt-get install -y valgrind >&2; }
fi

if [ -z "$BIN" ]; then
    LOCK=""; command -v flock >/dev/null 2>&1 && LOCK="flock /tmp/courier-build.lock"
    $LOCK swift build -c release --product courier-bench >&2
    BIN="$(swift build -c release --show-bin-path)/courier-bench"
fi

# valgrind 3.19 cannot read the DWARF 5 Swift 6 emits: strip debug info (symbols stay).
STRIPPED="$(mktemp /tmp/courier-bench-stripped.XXXXXX)"
SERVER_PID=""
cleanup() { rm -f "$STRIPPED"; [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true; }
trap cleanup EXIT
objcopy --strip-debug "$BIN" "$STRIPPED"
chmod +x "$STRIPPED"

instructions() {
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 \
        | awk '/Collected/ { print $4 }'
}
per_request() {  # per_request PATH → instructions per request
    local small large
    small=$(instructions "$STRIPPED" --micro 1000 --path "$1")
    large=$(instructions "$STRIPPED" --micro 3000 --path "$1")
    echo $(( (large - small) / 2000 ))
}

declare -A I
for path in stub build open data courier decode middleware; do
    I[$path]=$(per_request "$path")
    echo "micro.$path ${I[$path]}" >&2
done

row() { printf '| %-58s | %9s |\n' "$1" "$2"; }
echo "Courier's own instructions per request (callgrind, stub transport, JSON decoding excluded)"
echo
row "Stage" "Instr."
row "---" "---:"
row "build (prepare: path, query, headers into an HTTPRequest)" "${I[build]}"
row "middleware + transport glue (context, chain, redirects, status)" "$(( I[open] - I[build] - I[stub] ))"
row "collect (body into Data under the size limit)" "$(( I[data] - I[open] ))"
row "decode glue (the request's decode around JSONDecoder, metrics)" "$(( I[courier] - I[data] - I[decode] ))"
row "**total** (send − JSONDecoder − stub transport)" "**$(( I[courier] - I[decode] - I[stub] ))**"
row "excluded: the stub transport's send" "${I[stub]}"
row "excluded: JSONDecoder on the 1.5 KB body" "${I[decode]}"
row "default middleware stack (logging info, retry, bearer) on top" "$(( I[middleware] - I[courier] ))"

if [ "$NETWORK" = 1 ]; then
    coproc SERVER { "$STRIPPED" --serve; }
    SERVER_PID=$SERVER_PID
    read -r PORT <&"${SERVER[0]}"
    PORT=$(echo "$PORT" | tr -dc 0-9)
    net() {  # net KEY → instructions per request, 64 in flight, in the client process
        local small large
        small=$(instructions "$STRIPPED" --port "$PORT" --exactly "$1" --rounds 1 --sequential 1 --concurrent 640 --no-memory)
        large=$(instructions "$STRIPPED" --port "$PORT" --exactly "$1" --rounds 1 --sequential 1 --concurrent 1920 --no-memory)
        echo $(( (large - small) / 1280 ))
    }
    echo
    echo "Over the loopback network, 64 in flight (client process, decode included)"
    echo
    row "Scenarios run together" "Instr."
    row "---" "---:"
    for key in ahc.raw ahc.courier ahc.default.raw ahc.default.courier urlsession.default.raw urlsession.courier; do
        row "$key" "$(net "$key")"
    done
fi
