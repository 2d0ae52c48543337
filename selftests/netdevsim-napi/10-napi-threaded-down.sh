#!/bin/sh
# The kselftest of the net fix (patch 16), from the kernel tree: threaded
# NAPI off on a closed netdevsim device that keeps its NAPI instances.
. /selftests/guest/lib.sh

run_kselftest drivers/net/netdevsim/napi_threaded_down.sh
exit 0
