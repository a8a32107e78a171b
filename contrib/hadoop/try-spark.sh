#!/usr/bin/env bash
# try-spark.sh: the adapter in a real Spark installation, end to end, as contrib/hadoop/README.md tells a new
# user to install it. Starts a fresh local cluster (bin/xtreemfs-cluster: a DIR, an MRC, two OSDs), makes a
# volume striped over both (bin/mkfs.xtreemfs), puts ~3 MB of generated text on it with Hadoop's shell
# (`hadoop fs -put`, run from Spark's own Hadoop client jars), runs contrib/hadoop/spark/wordcount.py with
# spark-submit in local mode and the shaded jar passed by --jars, and checks what it wrote to the volume
# (read back with Hadoop's shell) against counts made without Spark. Exits 1 on a wrong result; stops the
# cluster and removes its folder at the end.
#
#   contrib/hadoop/try-spark.sh [--state FOLDER] [--keep]
#
#   --state FOLDER  the cluster's folder, new or empty, removed at the end (default: a new temporary one)
#   --keep          leave the cluster running and the folder in place (to look at the logs or the volume)
#
# Needs: the build (`mvn -B -ntp -q package -Dmaven.test.skip=true`), java, and spark-submit on PATH (e.g.
# `python3 -m venv /tmp/spark && /tmp/spark/bin/pip install pyspark==4.3.0 && PATH=/tmp/spark/bin:$PATH`);
# SPARK_HOME, when set, names the installation instead. Not part of `make test` (pyspark takes ~500 MB).
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)"
state=""
keep=0
usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; }
fail() { echo "try-spark: $*" >&2; exit 1; }
while [ $# -gt 0 ]; do
  case "$1" in
    --state) [ $# -ge 2 ] || { echo "try-spark: --state needs a folder" >&2; exit 2; }; state="$2"; shift 2 ;;
    --keep) keep=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "try-spark: unknown option '$1' (try --help)" >&2; exit 2 ;;
  esac
done

shopt -s nullglob
jars=("$root"/contrib/hadoop/target/xtreemfs-hadoop-*-hadoop.jar)
shopt -u nullglob
[ ${#jars[@]} -eq 1 ] || fail "expected one contrib/hadoop/target/xtreemfs-hadoop-*-hadoop.jar, found ${#jars[@]}:" \
  "build first (mvn -B -ntp -q package -Dmaven.test.skip=true)"
jar="${jars[0]}"
if [ -z "${SPARK_HOME:-}" ]; then
  submit="$(command -v spark-submit)" || fail "no spark-submit on PATH and SPARK_HOME is not set (see --help)"
  # Spark's own way to find its home (pip installs keep it inside the Python package).
  SPARK_HOME="$(bash -c 'source "$0" && echo "$SPARK_HOME"' "$(dirname "$submit")/find-spark-home")"
fi
[ -x "$SPARK_HOME/bin/spark-submit" ] && [ -d "$SPARK_HOME/jars" ] || fail "no Spark installation at SPARK_HOME=$SPARK_HOME"
export SPARK_HOME
hadoop_jars=("$SPARK_HOME"/jars/hadoop-client-api-*.jar)
echo "Spark $(basename "$(ls "$SPARK_HOME"/jars/spark-core_*.jar)" .jar | sed 's/^spark-core_//'), Hadoop" \
  "$(basename "${hadoop_jars[0]}" .jar | sed 's/^hadoop-client-api-//'), adapter $(basename "$jar"), $(java -version 2>&1 | head -1)"

if [ -z "$state" ]; then
  state="$(mktemp -d /tmp/try-spark.XXXXXX)"
elif [ -e "$state" ] && [ -n "$(ls -A "$state")" ]; then
  echo "try-spark: --state '$state' is not empty (it is removed at the end, so it must be new or empty)" >&2; exit 2
fi
mkdir -p "$state"
state="$(cd "$state" && pwd)"
work="$state/try-spark"
cluster() { "$root/bin/xtreemfs-cluster" "$1" --state "$state" "${@:2}"; }
cleanup() {
  local code=$?
  if [ "$keep" = 1 ]; then
    echo "Kept: the cluster in $state (stop it: bin/xtreemfs-cluster stop --state $state)"
  else
    cluster stop > /dev/null 2>&1 || true
    rm -rf "$state"
  fi
  exit "$code"
}
trap cleanup EXIT

cluster start --fresh --osds 2
eval "$(cluster status --shell)"
volume="xtreemfs://127.0.0.1:$dir_port/sparkcheck"
"$root/bin/mkfs.xtreemfs" -w 2 -s 64KiB "127.0.0.1:$dir_port/sparkcheck"

# Hadoop's shell (what `hadoop fs` runs) from the Hadoop client jars Spark ships, with the shaded jar and a
# core-site.xml as README step 3 has it (the shell insists on finding a core-site.xml).
mkdir -p "$work/in" "$work/conf"
cat > "$work/conf/core-site.xml" <<'XML'
<configuration>
  <property><name>fs.xtreemfs.impl</name><value>org.xtreemfs.common.clients.hadoop.XtreemFSFileSystem</value></property>
  <property><name>fs.AbstractFileSystem.xtreemfs.impl</name><value>org.xtreemfs.common.clients.hadoop.XtreemFS</value></property>
</configuration>
XML
hadoop_fs() { java -cp "$SPARK_HOME/jars/*:$jar:$work/conf" org.apache.hadoop.fs.FsShell "$@" 2>> "$work/fsshell.log"; }

# Deterministic text: words of a small vocabulary with a digit, drawn by a linear congruential generator (exact in
# awk's doubles), 12 a line.
awk -v lines=40000 -v seed=1 'BEGIN {
  split("alpha bravo charlie delta echo foxtrot golf hotel india juliett kilo lima mike november oscar papa " \
        "quebec romeo sierra tango uniform victor whiskey xray yankee zulu stripe object replica volume", vocabulary)
  size = length(vocabulary); x = seed
  for (line = 0; line < lines; line++) {
    text = ""
    for (word = 0; word < 12; word++) { x = (x * 69069 + 1) % 4294967296; r = int(x / 65536); text = text (word ? " " : "") vocabulary[1 + r % size] (r % 7) }
    print text > (line < lines * 2 / 3 ? "'"$work"'/in/part-a.txt" : "'"$work"'/in/part-b.txt")
  }
}'
cat "$work"/in/*.txt | tr -s ' ' '\n' | LC_ALL=C sort | uniq -c | awk '{ print $2 "\t" $1 }' > "$work/expected.tsv"
expected_lines=$(cat "$work"/in/*.txt | wc -l)
expected_words=$(cat "$work"/in/*.txt | wc -w)
expected_distinct=$(wc -l < "$work/expected.tsv")

hadoop_fs -mkdir -p "$volume/in"
hadoop_fs -put "$work"/in/*.txt "$volume/in/"
echo "Input on the volume ($(du -cb "$work"/in/*.txt | tail -1 | cut -f1) bytes, $expected_lines lines, $expected_words words):"
hadoop_fs -ls "$volume/in"

# As README step 2 says for --jars: the scheme's class named (Hadoop's service loader does not see jars added by
# --jars); 1 MiB blocks, so the ~3 MB input is cut into several splits.
SPARK_LOCAL_IP=127.0.0.1 PYTHONUNBUFFERED=1 "$SPARK_HOME/bin/spark-submit" --master 'local[2]' --jars "$jar" \
  --conf spark.hadoop.fs.xtreemfs.impl=org.xtreemfs.common.clients.hadoop.XtreemFSFileSystem \
  --conf spark.ui.enabled=false --conf spark.hadoop.xtreemfs.blockSize=1m \
  "$root/contrib/hadoop/spark/wordcount.py" "$volume/in" "$volume/out" > "$work/spark.out" 2> "$work/spark.log" \
  || { tail -40 "$work/spark.log" >&2; fail "spark-submit failed (log: $work/spark.log; --keep keeps it)"; }
grep '^RESULT ' "$work/spark.out"
result() { sed -n "s/^RESULT $1=//p" "$work/spark.out"; }

hadoop_fs -test -e "$volume/out/text/_SUCCESS" || fail "no _SUCCESS marker in $volume/out/text"
hadoop_fs -cat "$volume/out/text/part-*" | LC_ALL=C sort > "$work/counts.tsv"
problems=()
cmp -s "$work/expected.tsv" "$work/counts.tsv" || problems+=("the counts in $volume/out/text differ from the expected ones:
$({ diff "$work/expected.tsv" "$work/counts.tsv" || true; } | head -10)")
[ "$(result input_partitions)" -ge 3 ] || problems+=("input_partitions $(result input_partitions), expected at least 3 (1 MiB blocks)")
[ "$(result dataframe_lines)" = "$expected_lines" ] || problems+=("dataframe_lines $(result dataframe_lines), expected $expected_lines")
[ "$(result parquet_words)" = "$expected_distinct" ] || problems+=("parquet_words $(result parquet_words), expected $expected_distinct")
[ "$(result parquet_total)" = "$expected_words" ] || problems+=("parquet_total $(result parquet_total), expected $expected_words")
if [ ${#problems[@]} -gt 0 ]; then
  printf 'try-spark: %s\n' "${problems[@]}" >&2
  exit 1
fi
echo "OK: $expected_distinct words counted right ($expected_words in all) by Spark, read from and written to $volume"
