#!/usr/bin/env bash
# A one-machine Slurm cluster in a folder, for the Slurm runner's tests (docs/sweep.md): munged
# with its own key and socket, slurmctld and slurmd as root, no accounting, no cgroup. Source it,
# then:
#   slurm_start DIR   starts the daemons (returns once the node takes jobs; on failure prints the
#                     daemons' log lines that say why and returns 1); exports SLURM_CONF
#   slurm_stop        stops them by process id
# Free ports are picked at random in 20000-29999 (checked with ss). Needs root, munge, slurm-wlm.

slurm_free_port() {
  local p
  for _ in $(seq 50); do
    p=$((20000 + RANDOM % 10000))
    ss -ltnH "sport = :$p" 2>/dev/null | grep -q . || { echo "$p"; return 0; }
  done
  return 1
}

slurm_why() { # the daemons' log lines that say why they did not start
  local d=$1
  for f in "$d"/munged.log "$d"/slurmctld.log "$d"/slurmd.log "$d"/*.out; do
    [ -s "$f" ] || continue
    echo "--- $f" >&2
    grep -E 'error|fatal|Error|refus|denied|cannot|failed' "$f" | grep -vE 'PMIx|pmix|MailProg|mail program' | tail -5 >&2
  done
}

slurm_start() {
  SLURM_DIR=$1
  local d=$SLURM_DIR
  mkdir -p "$d/state" "$d/spool" "$d/munge"
  chmod 755 "$d/munge" # munged refuses a socket folder without others' execute permission
  command -v munged >/dev/null && command -v slurmctld >/dev/null && command -v slurmd >/dev/null || {
    echo "slurm_start: munged, slurmctld or slurmd is missing (Debian packages munge and slurm-wlm)" >&2
    return 1
  }
  mungekey --create --keyfile="$d/munge.key" >/dev/null 2>&1 || { echo "slurm_start: mungekey failed" >&2; return 1; }
  chmod 600 "$d/munge.key"
  munged --key-file="$d/munge.key" --socket="$d/munge/socket" --pid-file="$d/munged.pid" \
    --log-file="$d/munged.log" --seed-file="$d/munged.seed" --force 2>>"$d/munged.log" || {
    echo "slurm_start: munged did not start" >&2
    slurm_why "$d"
    return 1
  }
  local ctl_port d_port
  ctl_port=$(slurm_free_port) && d_port=$(slurm_free_port) || { echo "slurm_start: no free port" >&2; return 1; }
  local cpus
  cpus=$(nproc)
  cat >"$d/slurm.conf" <<CONF
ClusterName=sgaitest
SlurmctldHost=localhost
AuthType=auth/munge
AuthInfo=socket=$d/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctl_port
SlurmdPort=$d_port
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$d/jobcomp.txt
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=sched_interval=1
MaxArraySize=1001
MinJobAge=300
ReturnToService=2
MpiDefault=none
NodeName=localhost CPUs=$cpus State=UNKNOWN
PartitionName=debug Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$d/slurm.conf
  slurmctld -D -i -f "$d/slurm.conf" >"$d/slurmctld.out" 2>&1 &
  echo $! >"$d/slurmctld.bgpid"
  slurmd -D -N localhost -f "$d/slurm.conf" >"$d/slurmd.out" 2>&1 &
  echo $! >"$d/slurmd.bgpid"
  local i
  for i in $(seq 100); do # up to 20 s for the node to take jobs
    if sinfo -h -N -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then
      return 0
    fi
    for p in slurmctld slurmd; do
      kill -0 "$(cat "$d/$p.bgpid")" 2>/dev/null || {
        echo "slurm_start: $p exited" >&2
        slurm_why "$d"
        return 1
      }
    done
    sleep 0.2
  done
  echo "slurm_start: the node did not become idle in 20 s ($(sinfo -h -N -o '%T %E' 2>&1 | head -1))" >&2
  slurm_why "$d"
  return 1
}

slurm_stop() {
  local d=${SLURM_DIR:-}
  [ -n "$d" ] || return 0
  local f p
  for f in slurmd.bgpid slurmctld.bgpid munged.pid; do
    [ -s "$d/$f" ] || continue
    p=$(cat "$d/$f")
    kill "$p" 2>/dev/null || continue
    for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$p" 2>/dev/null || true
  done
}
