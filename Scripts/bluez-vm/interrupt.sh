# shellcheck shell=bash
# interrupt PID NAME: Ctrl-C (SIGINT) to a readerctl started in the background, as a person
# would stop it. It must end within 15 s with status 0; otherwise it is killed, the failure
# is reported as a step of the calling script (report.sh's `fail`) and this returns 1.
# Sourced by the scripts that run in the bluez-vm guest.
interrupt() {
    local pid=$1 name=$2 status=0 watchdog
    kill -INT "$pid" 2>/dev/null || true
    # The watchdog holds none of the script's output open, lest a reader of it wait for it.
    (sleep 15 && kill -KILL "$pid" 2>/dev/null) >/dev/null 2>&1 &
    watchdog=$!
    wait "$pid" 2>/dev/null || status=$?
    kill "$watchdog" 2>/dev/null || true
    wait "$watchdog" 2>/dev/null || true
    ((status == 0)) && return 0
    if ((status == 137)); then
        fail "$name did not stop within 15 s of Ctrl-C (killed)"
    else
        fail "$name ended with status $status on Ctrl-C (expected 0)"
    fi
    return 1
}
