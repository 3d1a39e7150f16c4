"""A trivial virtual smart card for vsmartcard's vpcd (pcscd's virtual reader): it
connects to vpcd (localhost:35963) and answers every APDU with 90 00 at once, so that
SCardTransmit's round trip is pcscd's path alone. vpcd's protocol: each message is a
2-byte big-endian length then its bytes; a 1-byte message is a command (0 power off,
1 power on, 2 reset, 4 get the ATR), anything longer an APDU.

Usage: trivial_vicc.py [PORT]
"""
import socket
import struct
import sys
import time

ATR = bytes.fromhex("3B 68 00 00 00 73 C8 40 13 00 90 00")


def receive(connection, size):
    data = b""
    while len(data) < size:
        chunk = connection.recv(size - len(data))
        if not chunk:
            raise ConnectionError("vpcd closed the connection")
        data += chunk
    return data


def serve(port):
    while True:
        try:
            connection = socket.create_connection(("127.0.0.1", port))
        except OSError:
            time.sleep(0.1)
            continue
        connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        print("connected", flush=True)
        try:
            while True:
                (length,) = struct.unpack(">H", receive(connection, 2))
                message = receive(connection, length)
                if length == 1:
                    if message[0] == 4:
                        connection.sendall(struct.pack(">H", len(ATR)) + ATR)
                    continue
                connection.sendall(struct.pack(">H", 2) + b"\x90\x00")
        except ConnectionError:
            connection.close()


if __name__ == "__main__":
    serve(int(sys.argv[1]) if len(sys.argv) > 1 else 35963)
