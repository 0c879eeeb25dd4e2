#!/usr/bin/env bash
# `npm run lint [files…]`: Prettier's check (whole tree only), then eslint with the module boundaries on. The nx boundary rule skips itself,
# with only a console note, when no project graph is cached (any fresh clone), so cache it first.
set -euo pipefail
cd "$(dirname "$0")/.."
export NX_DAEMON="${NX_DAEMON:-false}" NX_NO_CLOUD=true
npx nx show projects > /dev/null
if [ $# -eq 0 ]; then
  # The whole tree: formatting first (one config, .prettierrc.json; `npm run format` writes it), then the rules.
  npx prettier --check --log-level warn "**/*.{ts,tsx,js,mjs,cjs}"
  set -- .
fi
exec npx eslint --max-warnings=0 "$@"
