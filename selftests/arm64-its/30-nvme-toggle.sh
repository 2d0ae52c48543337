#!/bin/sh
# 1,000 switches of the NVMe I/O queue under verified fio, as in
# irq-switch.
TOGGLES=1000
. /selftests/irq-switch/20-nvme-toggle.sh
