#!/usr/bin/env bash
# A one-node Slurm cluster on this machine, to try the Slurm path of council-match (and to test
# it): Debian's slurm-wlm and munge, run as root, slurmctld + slurmd, no accounting. Its files
# live in one folder (default /var/tmp/council-slurm); the system's /etc/slurm is not touched.
#
#   sudo bash configs/slurm/local-cluster.sh start     # install what is missing, start, wait
#   export SLURM_CONF=/var/tmp/council-slurm/slurm.conf   # (printed by start) for sbatch, squeue
#   sudo bash configs/slurm/local-cluster.sh status
#   sudo bash configs/slurm/local-cluster.sh stop
#
# `start` is idempotent: when the cluster already answers, it only prints SLURM_CONF.
# COUNCIL_SLURM_DIR chooses the folder.
set -euo pipefail

DIR="${COUNCIL_SLURM_DIR:-/var/tmp/council-slurm}"
CONF="$DIR/slurm.conf"
export SLURM_CONF="$CONF"

say() { printf 'local-cluster: %s\n' "$*" >&2; }

need_root() {
    [ "$(id -u)" -eq 0 ] || {
        say "run as root (sudo): the Slurm daemons and munge run as root here"
        exit 1
    }
}

answers() { [ -f "$CONF" ] && timeout 10 sinfo -h -o '%T' 2>/dev/null | grep -Eq '^(idle|mixed|allocated)'; }

install() {
    local missing=()
    for p in slurm-wlm munge; do
        [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)" = "install ok installed" ] ||
            missing+=("$p")
    done
    if [ "${#missing[@]}" -gt 0 ]; then
        say "installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq "${missing[@]}" >/dev/null
    fi
}

write_conf() {
    local host cpus
    host="$(hostname -s)"
    cpus="$(nproc)"
    mkdir -p "$DIR/state" "$DIR/spool" "$DIR/log"
    cat >"$CONF" <<EOF
# Written by configs/slurm/local-cluster.sh: a one-node cluster for council-match.
ClusterName=council
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$DIR/state
SlurmdSpoolDir=$DIR/spool
SlurmctldPidFile=$DIR/slurmctld.pid
SlurmdPidFile=$DIR/slurmd.pid
SlurmctldLogFile=$DIR/log/slurmctld.log
SlurmdLogFile=$DIR/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
KillWait=10
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=local Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF
}

start() {
    need_root
    if answers; then
        say "already running"
        echo "export SLURM_CONF=$CONF"
        return
    fi
    install
    write_conf
    if ! pgrep -x munged >/dev/null; then
        [ -s /etc/munge/munge.key ] || {
            say "creating /etc/munge/munge.key"
            dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null
            chown munge:munge /etc/munge/munge.key 2>/dev/null || true
            chmod 400 /etc/munge/munge.key
        }
        mkdir -p /run/munge
        chown munge:munge /run/munge 2>/dev/null || true
        munged --force
    fi
    pkill -x slurmctld 2>/dev/null || true
    pkill -x slurmd 2>/dev/null || true
    sleep 1
    slurmctld -f "$CONF"
    slurmd -f "$CONF"
    for _ in $(seq 1 60); do
        if answers; then
            say "running ($(hostname -s), $(nproc) CPUs)"
            echo "export SLURM_CONF=$CONF"
            return
        fi
        # A node that came up DOWN after an earlier stop: bring it back.
        scontrol update nodename="$(hostname -s)" state=resume 2>/dev/null || true
        sleep 1
    done
    say "the cluster did not come up; see $DIR/log/"
    tail -n 20 "$DIR/log/slurmctld.log" "$DIR/log/slurmd.log" >&2 || true
    exit 1
}

stop() {
    need_root
    scancel --user=root 2>/dev/null || true
    pkill -x slurmd 2>/dev/null || true
    pkill -x slurmctld 2>/dev/null || true
    say "stopped (munged left running)"
}

status() {
    if answers; then
        sinfo
        squeue
    else
        say "not running"
        exit 1
    fi
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
*)
    echo "usage: $0 start|stop|status" >&2
    exit 2
    ;;
esac
