#!/usr/bin/env bash
# make test-slurm: shards and merge on a real, one-node Slurm cluster.
#
# Installs slurmctld, slurmd, slurm-client and munge with apt if they are
# missing (root), starts munged (unless one answers already), slurmctld
# and slurmd from a slurm.conf of its own (no systemd, no accounting:
# polls squeue/scontrol), submits SPEC (default mean-synthetic) at quick
# scale as a 4-task array with the merge job after it (submit.sh), and
# checks that the merged files equal a single-machine run's byte for byte.
# It stops the daemons it started, by their pid files, on success and on
# failure, and prints their logs on failure. Environment: SPEC, SHARDS
# (default 4), LDPBENCH (default bin/ldpbench), TIMEOUT (seconds for the
# jobs, default 600).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
SPEC=${SPEC:-mean-synthetic}
SHARDS=${SHARDS:-4}
TIMEOUT=${TIMEOUT:-600}
export LDPBENCH=${LDPBENCH:-$repo/bin/ldpbench}
case $LDPBENCH in /*) ;; *) LDPBENCH=$repo/$LDPBENCH ;; esac

say() { echo "test-slurm: $*"; }
die() { echo "test-slurm: FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "run as root: it installs packages and starts slurmctld, slurmd and munged"
[ -x "$LDPBENCH" ] || die "$LDPBENCH is not built (make build)"

# --- packages
need=()
for c in slurmctld slurmd sbatch squeue scontrol sinfo munged munge; do
	command -v "$c" >/dev/null 2>&1 || need+=("$c")
done
if [ ${#need[@]} -gt 0 ]; then
	say "installing slurmctld slurmd slurm-client munge (missing: ${need[*]})"
	command -v apt-get >/dev/null || die "missing ${need[*]} and no apt-get to install them"
	# Keep the packages' init scripts from starting daemons: this script
	# starts (and stops) its own.
	policy=""
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		policy=/usr/sbin/policy-rc.d
	fi
	export DEBIAN_FRONTEND=noninteractive
	ok=1
	timeout 600 apt-get update -qq || ok=0
	[ $ok = 1 ] && { timeout 600 apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null || ok=0; }
	[ -n "$policy" ] && rm -f "$policy"
	[ $ok = 1 ] || die "apt-get could not install slurmctld slurmd slurm-client munge (timeout 600 s or an apt error above)"
fi

work=$(mktemp -d /tmp/ldpbench-slurm.XXXXXX)
chmod 755 "$work"
started_munged=""
cleanup() {
	status=$?
	set +e
	if [ $status -ne 0 ]; then
		for f in "$work"/slurmctld.log "$work"/slurmd.log "$work"/out/*.out /var/log/munge/munged.log; do
			[ -f "$f" ] && { echo "----- $f (last 40 lines)"; tail -n 40 "$f"; }
		done
		command -v squeue >/dev/null && SLURM_CONF=$work/slurm.conf squeue 2>/dev/null
	fi
	for pf in "$work/slurmd.pid" "$work/slurmctld.pid" $started_munged; do
		[ -f "$pf" ] || continue
		pid=$(cat "$pf")
		kill "$pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
		kill -0 "$pid" 2>/dev/null && { echo "test-slurm: $pf ($pid) did not stop on SIGTERM: SIGKILL"; kill -9 "$pid"; }
	done
	if [ $status -eq 0 ]; then rm -rf "$work"; else echo "test-slurm: logs and outputs kept in $work"; fi
	exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- munge
if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
	say "munged already answers: using it"
else
	[ -s /etc/munge/munge.key ] || {
		say "creating /etc/munge/munge.key"
		if command -v mungekey >/dev/null; then mungekey --create --keyfile=/etc/munge/munge.key; else dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null; fi
		chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
	}
	mkdir -p /run/munge /var/lib/munge /var/log/munge
	chown munge:munge /run/munge /var/lib/munge /var/log/munge
	chmod 755 /run/munge
	runuser -u munge -- munged 2>"$work/munged.err" ||
		{ cat "$work/munged.err"; die "munged did not start"; }
	started_munged=/run/munge/munged.pid
	for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.2; done
	munge -n | unmunge >/dev/null || die "munged started but does not answer"
fi

# --- slurm.conf: one node, this host, no accounting, no cgroups
host=$(hostname -s)
cpus=$(nproc)
mkdir -p "$work/state" "$work/spool" "$work/out"
cat >"$work/slurm.conf" <<CONF
ClusterName=ldpbenchtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=16817
SlurmdPort=16818
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
MpiDefault=none
ReturnToService=2
MinJobAge=3600
DependencyParameters=kill_invalid_depend
SlurmdParameters=config_overrides
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
export SLURM_CONF=$work/slurm.conf

say "starting slurmctld and slurmd ($host, $cpus CPUs, config $SLURM_CONF)"
slurmctld -f "$SLURM_CONF" || die "slurmctld did not start"
slurmd -f "$SLURM_CONF" -N "$host" || die "slurmd did not start"

deadline=$((SECONDS + 60))
until [ "$(sinfo -h -n "$host" -o %t 2>/dev/null)" = idle ]; do
	[ $SECONDS -lt $deadline ] || die "node $host not idle after 60 s (sinfo: $(sinfo -h -o '%t %E' 2>&1))"
	sleep 0.5
done
say "node $host idle after $((SECONDS + 60 - deadline)) s"

# --- the jobs
root=$work/out
submitted=$(bash deploy/slurm/submit.sh "$SPEC" "$SHARDS" "$root" --quick)
echo "$submitted"
array=$(sed -n 's/^shards: job \([0-9]*\).*/\1/p' <<<"$submitted")
merge=$(sed -n 's/.*merge: job \([0-9]*\).*/\1/p' <<<"$submitted")
[ -n "$array" ] && [ -n "$merge" ] || die "could not read the job ids from submit.sh"

# Without accounting there is no sacct: a job's record stays in scontrol
# for MinJobAge, one line per array task.
states() { scontrol -o show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2 | sort | uniq -c | tr -s ' \n' ' '; }
deadline=$((SECONDS + TIMEOUT))
while :; do
	m=$(scontrol -o show job "$merge" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
	case $m in
	COMPLETED) break ;;
	PENDING | RUNNING | CONFIGURING | COMPLETING | "") ;;
	*) die "merge job $merge ended $m; shards: $(states "$array")" ;;
	esac
	[ $SECONDS -lt $deadline ] || die "jobs not done after $TIMEOUT s: shards $(states "$array"); merge $m; squeue: $(squeue -h 2>&1 | head -20)"
	sleep 1
done
say "shards: $(states "$array"); merge job $merge COMPLETED"
n=$(scontrol -o show job "$array" | grep -c 'JobState=COMPLETED')
[ "$n" = "$SHARDS" ] || die "$n of $SHARDS array tasks COMPLETED"

# --- the same spec on this machine alone
"$LDPBENCH" run "$SPEC" --quick -j "$cpus" --out "$work/single" >/dev/null 2>"$work/single.err" || { cat "$work/single.err"; die "the single-machine run failed"; }
compared=0
for f in "$work/single"/*; do
	b=$(basename "$f")
	[ "$b" = times.csv ] && continue # the machine's times, not results
	cmp -s "$f" "$root/merged/$b" || die "merged $b differs from the single-machine run's ($root/merged/$b vs $f)"
	compared=$((compared + 1))
done
[ $compared -ge 3 ] || die "only $compared files to compare"
# The merged times.csv is the shards' records: a header and one row each.
rows=$(($(wc -l <"$root/merged/times.csv") - 1))
[ "$rows" = "$SHARDS" ] || die "merged times.csv has $rows rows, want one per shard ($SHARDS)"
say "PASS: $SHARDS shards on Slurm merged into the single run's bytes ($compared files: $(cd "$work/single" && ls | grep -vx times.csv | tr '\n' ' '); times.csv: one row per shard)"
