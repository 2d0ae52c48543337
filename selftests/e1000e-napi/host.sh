#!/bin/bash
# Host side of the e1000e-napi scenario (see ci/vm.sh, HOST_FWD=1).
#   host.sh prepare   make the payload; print the kernel arguments that
#                     tell the guest its size and md5
#   host.sh run       connect to 127.0.0.1:$HOST_PORT (forwarded to the
#                     guest's port 5001) and send the payload, again and
#                     again: at most 60 transfers, 400 s, one connection
#                     attempt per 0.2 s.  Only loopback traffic.
set -euo pipefail
: "${HOST_PORT:?}" "${HOST_DIR:?}"
payload=$HOST_DIR/payload.bin
size=${NAPI_PAYLOAD_BYTES:-4194304}

case ${1:-} in
prepare)
	head -c "$size" /dev/urandom >"$payload"
	echo "irqtest.payload_bytes=$size irqtest.payload_md5=$(md5sum "$payload" | cut -d' ' -f1)"
	;;
run)
	exec python3 - "$HOST_PORT" "$payload" <<'PY'
import socket, sys, time
port, path = int(sys.argv[1]), sys.argv[2]
data = open(path, "rb").read()
end, sent = time.monotonic() + 400, 0
while sent < 60 and time.monotonic() < end:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.settimeout(120)
            # QEMU accepts the connection before the guest listens: only a
            # reply byte from the guest says that it is reading.
            if s.recv(1) != b"R":
                raise OSError("guest not ready")
            s.sendall(data)
            s.shutdown(socket.SHUT_WR)
            s.recv(1)
        sent += 1
        print(f"transfer {sent}: {len(data)} bytes", flush=True)
    except OSError:
        time.sleep(0.2)
print(f"host sent {sent} transfers", flush=True)
PY
	;;
*) echo "usage: host.sh prepare|run" >&2; exit 2 ;;
esac
