#!/bin/sh
# The kselftest of the series under NVMe load, as in irq-switch.
. /selftests/irq-switch/10-kselftest-irq.sh
