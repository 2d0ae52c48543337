#!/bin/sh
# tools/testing/selftests/irq of the series, built statically on the host.
. /selftests/guest/lib.sh
run_kselftest irq/threaded_test
