# Sourced by the GPU sitting scripts (research/models/gpu_sitting.sh, research/models/gpu_jackknife.sh): installs the carried
# wheels (WHEELS, default .whl; WHEELS=none uses the installed stanza) and unpacks the carried EWT files
# (UD_XZ, default .gpu/ud) into $ud, as en_ewt-ud-{train,dev,test}.conllu.
wheels=${WHEELS:-.whl}
if [ -d "$wheels" ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        "$wheels"/*.whl || exit 1
    export PYTHONPATH=/tmp/site
fi
ud=$(mktemp -d)
for s in train dev test; do
    xz -dc "${UD_XZ:-.gpu/ud}/en_ewt.$s.conllu.xz" > "$ud/en_ewt-ud-$s.conllu" || exit 1
done
[ "${DEVICE:-cuda}" = cpu ] || nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-4} PYTHONUNBUFFERED=1
