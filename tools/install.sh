#!/usr/bin/env bash
# `make install`: create (or reuse) the project's virtual environment and install mteval into it,
# editable, with the extras asked for (issue 30; docs/install.md).
#
#   bash tools/install.sh PYTHON VENV EXTRAS
#
# PYTHON: the interpreter to build the environment from (a venv's python counts as its base
# interpreter); VENV: the folder (.venv), or "" to install into PYTHON's own environment;
# EXTRAS: e.g. syntax,test,dask,models. Nothing is done when the environment is current: same base
# interpreter, same setup.cfg/setup.py, same extras (recorded in VENV/.mteval-installed).
# PyTorch is installed first as the pinned CPU build when the syntax extra is asked for: a plain
# `torch` requirement (Stanza's) would pull a multi-GB CUDA build.
set -euo pipefail
host=${1:?interpreter} venv=${2-} extras=${3-}

if ! base=$("$host" -c 'import os, sys; print(os.path.realpath(sys._base_executable))' 2>/dev/null); then
    echo "make install: cannot run '$host'; give another interpreter with PYTHON=..." >&2
    exit 2
fi
if [ -n "$venv" ]; then
    if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.mteval-base" 2>/dev/null)" != "$base" ]; then
        echo "make install: creating the virtual environment $venv with $base"
        if ! "$base" -m venv --clear "$venv"; then
            echo "make install: '$base -m venv' failed; on Debian/Ubuntu: apt install python3-venv" \
                 "(or VENV= to install into $host's own environment)" >&2
            exit 2
        fi
        echo "$base" > "$venv/.mteval-base"
    fi
    python="$venv/bin/python" stamp="$venv/.mteval-installed"
else
    python="$host" stamp="build/.mteval-installed"
fi
wanted="$base $(cat setup.cfg setup.py | cksum) [$extras]"
if [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
    echo "make install: ${venv:-$host} is current (mteval[$extras])"
    exit 0
fi
rm -f "$stamp"
started=$SECONDS
case ",$extras," in
    *,syntax,*) "$python" -m pip install -q torch==2.13.0 ;;
esac
"$python" -m pip install -q -e ".[$extras]"
mkdir -p "$(dirname "$stamp")"
echo "$wanted" > "$stamp"
echo "make install: mteval[$extras] installed in ${venv:-$host} in $((SECONDS - started)) s"
