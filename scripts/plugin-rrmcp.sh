#!/bin/sh
# plugin-rrmcp.sh starts rrmcp for the Claude Code plugin (.claude-plugin/
# plugin.json, hooks/hooks.json) with the given arguments: the plugin's own
# bin/rrmcp (make build), else rrmcp on PATH (go install ./cmd/rrmcp), else
# it builds bin/rrmcp from the plugin's source first (once; the go command
# is the one make uses, see gotoolchain.sh). Nothing but rrmcp's own output
# goes to stdout.
root=$(cd "$(dirname "$0")/.." && pwd)
if [ -x "$root/bin/rrmcp" ]; then
	exec "$root/bin/rrmcp" "$@"
fi
if command -v rrmcp >/dev/null 2>&1; then
	exec rrmcp "$@"
fi
echo "rrmcp: building $root/bin/rrmcp (once)" >&2
cd "$root" && $(scripts/gotoolchain.sh) build -o bin/rrmcp ./cmd/rrmcp >&2 || exit 1
exec "$root/bin/rrmcp" "$@"
