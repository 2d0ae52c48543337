#!/bin/sh
# The kselftest of the net fix (patch 17), from the kernel tree: threaded
# NAPI off on a closed netdevsim device that keeps its NAPI instances.
# It is in netdev's Python form; lib/py runs iproute2's ip (/usr/sbin).
. /selftests/guest/lib.sh

export PATH=/usr/sbin:$PATH
run_kselftest net/napi_threaded_down.py
exit 0
