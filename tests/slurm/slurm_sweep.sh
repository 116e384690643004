#!/usr/bin/env bash
# The single-node Slurm test of `npusim sweep --emit slurm` (docs/sweep.md): starts munged,
# slurmctld and slurmd on localhost (recipe: a slurm.conf of its own in a scratch folder, its own
# munge socket and ports), submits the emitted array and its collect job with submit.sh --wait,
# and checks that the merged results equal those of the same sweep run locally with -j 2
# (host times aside). Stops the daemons it started, by their PIDs.
#
#   slurm_sweep.sh NPUSIM SWEEP.yaml
# Exit 0: passed; 77: skipped, with the reason (ctest SKIP_RETURN_CODE) -- never under CI=true,
# where a Slurm that cannot start is a failure; anything else: failed.
set -euo pipefail
npusim=$1
sweep=$2

skip() {
  if [ "${CI:-}" = true ]; then
    echo "FAIL: Slurm cannot start, and under CI=true this test must run: $*"
    exit 1
  fi
  echo "SKIPPED: $*"
  exit 77
}
fail() {
  echo "FAIL: $*"
  for f in "$WORK"/log/*.log "$WORK"/munge/munged.log "$WORK"/slurm-sweep/slurm/*.out; do
    [ -f "$f" ] && { echo "--- $f"; tail -n 30 "$f"; }
  done
  exit 1
}

for t in slurmctld slurmd sbatch sinfo munged munge unmunge mungekey runuser; do
  command -v "$t" >/dev/null 2>&1 || skip "'$t' is not installed (tools/deps.sh installs slurm-wlm and munge)"
done
[ "$(id -u)" = 0 ] || skip "not root: slurmd must run as root to start jobs"
id munge >/dev/null 2>&1 || skip "there is no 'munge' user (the munge package creates it)"

WORK=$(mktemp -d /tmp/npusim-slurm.XXXXXX)
chmod 755 "$WORK"
pids=()
cleanup() {
  for pf in "$WORK/run/slurmd.pid" "$WORK/run/slurmctld.pid" "$WORK/munge/munged.pid"; do
    [ -s "$pf" ] || continue
    p=$(cat "$pf")
    kill "$p" 2>/dev/null || continue
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

# Ports of our own (the defaults 6817/6818 may belong to a real Slurm on this machine).
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
base=$((20000 + ($$ % 2000) * 2))
for _ in $(seq 50); do
  port_free "$base" && port_free $((base + 1)) && break
  base=$((base + 2))
done
port_free "$base" || skip "no free port pair near 20000 for slurmctld and slurmd"

# munge with its own key, socket and pid file.
install -d -o munge -g munge -m 755 "$WORK/munge"
mungekey --create --keyfile="$WORK/munge/munge.key" >/dev/null 2>&1 || skip "mungekey cannot create a key"
chown munge:munge "$WORK/munge/munge.key"
chmod 400 "$WORK/munge/munge.key"
sock="$WORK/munge/munge.socket"
runuser -u munge -- munged --socket="$sock" --key-file="$WORK/munge/munge.key" \
  --pid-file="$WORK/munge/munged.pid" --log-file="$WORK/munge/munged.log" \
  --seed-file="$WORK/munge/munged.seed" || skip "munged does not start: $(tail -n 3 "$WORK/munge/munged.log" 2>/dev/null)"
munge -S "$sock" -n | unmunge -S "$sock" >/dev/null 2>&1 || skip "munge credentials do not verify"

# slurm.conf for this machine: its host name and what slurmd detects.
mkdir -p "$WORK/etc" "$WORK/state" "$WORK/spool" "$WORK/run" "$WORK/log"
host=$(hostname -s)
node=$(slurmd -C | head -n 1)
case "$node" in NodeName=*) ;; *) skip "slurmd -C does not describe this node: $node" ;; esac
cat > "$WORK/etc/slurm.conf" <<CONF
ClusterName=npusimtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$base
SlurmdPort=$((base + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
MpiDefault=none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
MinJobAge=4
MailProg=/bin/true
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/run/slurmctld.pid
SlurmdPidFile=$WORK/run/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
ReturnToService=2
$node NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF="$WORK/etc/slurm.conf"
slurmctld -c || skip "slurmctld does not start: $(tail -n 3 "$WORK/log/slurmctld.log" 2>/dev/null)"
slurmd || skip "slurmd does not start: $(tail -n 3 "$WORK/log/slurmd.log" 2>/dev/null)"
state=
for _ in $(seq 300); do
  state=$(sinfo -h -N -o %t 2>/dev/null || true)
  [ "$state" = idle ] && break
  sleep 0.1
done
[ "$state" = idle ] || skip "the node did not become idle in 30 s (state '$state')"
echo "slurm: slurmctld and slurmd up on 127.0.0.1:$base (node $host idle)"

# The sweep on Slurm: 4 points in 2 array tasks (--chunk 3: the last task has one point).
"$npusim" sweep "$sweep" --emit slurm "$WORK/slurm-sweep" --chunk 3 || fail "--emit slurm failed"
grep -q -- '--array=0-1$' "$WORK/slurm-sweep/sweep.sbatch" || fail "the array is not 0-1 for 4 points in chunks of 3"
set +e
timeout 300 bash "$WORK/slurm-sweep/submit.sh" --wait
slurm_rc=$?
"$npusim" sweep "$sweep" -j 2 -q -o "$WORK/local"
local_rc=$?
set -e
[ "$slurm_rc" != 124 ] || fail "the Slurm jobs did not finish in 300 s"
[ -s "$WORK/slurm-sweep/results.csv" ] || fail "the collect job wrote no results.csv"
[ "$slurm_rc" = "$local_rc" ] || fail "exit code on Slurm $slurm_rc, locally $local_rc"

# Equal results, host times aside (host_time_s: a column of the CSV, a member of the JSON).
col=$(head -n 1 "$WORK/local/results.csv" | tr ',' '\n' | grep -n -x host_time_s | cut -d: -f1)
[ -n "$col" ] || fail "results.csv has no host_time_s column"
strip_csv() { cut -d, -f"1-$((col - 1)),$((col + 1))-" "$1"; }
strip_jsonl() { sed -E 's/"host_time_s":[^,]*,//' "$1"; }
diff <(strip_csv "$WORK/local/results.csv") <(strip_csv "$WORK/slurm-sweep/results.csv") ||
  fail "results.csv differs between Slurm and the local run"
diff <(strip_jsonl "$WORK/local/results.jsonl") <(strip_jsonl "$WORK/slurm-sweep/results.jsonl") ||
  fail "results.jsonl differs between Slurm and the local run"
rows=$(($(wc -l < "$WORK/slurm-sweep/results.csv") - 1))
[ "$rows" = 4 ] || fail "$rows result rows, expected 4"
[ "$(grep -c ',ok,0,' "$WORK/slurm-sweep/results.csv")" = 2 ] || fail "expected 2 points ok"
[ "$(grep -c ',fault,1,' "$WORK/slurm-sweep/results.csv")" = 2 ] || fail "expected 2 points with an allocation fault"
ls "$WORK"/slurm-sweep/slurm/*_1.out >/dev/null 2>&1 || fail "no output of array task 1"
echo "PASS: Slurm and local results agree ($rows points)"
