#!/usr/bin/env bash
# Converts the DocC catalog of every library product (Sources/<Module>/<Module>.docc) with
# `docc convert --warnings-as-errors`: a broken symbol link, a missing landing page or a
# malformed article fails. Uses the symbol graphs SwiftPM extracts from the debug build
# (`swift package dump-symbol-graph`), so after `swift build` it costs seconds per catalog.
#   Scripts/docc-check.sh            every catalog
#   Scripts/docc-check.sh Courier    one module
set -euo pipefail
cd "$(dirname "$0")/.."
docc_bin="$(command -v docc || true)"
[ -n "$docc_bin" ] || docc_bin="$(dirname "$(readlink -f "$(command -v swift)")")/docc"
[ -x "$docc_bin" ] || { echo "docc not found (it ships with the Swift toolchain)" >&2; exit 1; }

graphs="$(swift package dump-symbol-graph --minimum-access-level public 2>&1 | sed -n 's/^Files written to //p' | tail -1)"
[ -d "$graphs" ] || { echo "swift package dump-symbol-graph wrote no symbol graphs" >&2; exit 1; }

modules=("$@")
if [ ${#modules[@]} -eq 0 ]; then
    for catalog in Sources/*/*.docc; do modules+=("$(basename "$(dirname "$catalog")")"); done
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
failed=0
for module in "${modules[@]}"; do
    catalog="Sources/$module/$module.docc"
    [ -d "$catalog" ] || { echo "$module: no catalog at $catalog" >&2; failed=1; continue; }
    mkdir -p "$work/$module/graphs"
    # The module's own graph and its extensions of other modules' types (Module@Other).
    cp "$graphs/$module.symbols.json" "$work/$module/graphs/"
    cp "$graphs/$module@"*.symbols.json "$work/$module/graphs/" 2>/dev/null || true
    if "$docc_bin" convert "$catalog" --additional-symbol-graph-dir "$work/$module/graphs" \
        --fallback-display-name "$module" --fallback-bundle-identifier "courier.$module" \
        --output-path "$work/$module/out" --warnings-as-errors > "$work/$module/log" 2>&1; then
        echo "$module: no warnings"
    else
        echo "$module: docc reported problems:" >&2
        cat "$work/$module/log" >&2
        failed=1
    fi
done
exit $failed
