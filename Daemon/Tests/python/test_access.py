"""Who may do what: users outside the daemon's configuration are refused (their identity
read from the kernel, SO_PEERCRED, not from anything they send); unmasked card data and
APDUs only for the reveal list, every reveal logged without the data; TCP only with a
client certificate the shop's CA signed."""
import os
import socket
import subprocess
import sys
import tempfile
import textwrap

import grpc
import pytest

from conftest import EVENT_BOUND, error_info, fails, pb, rpc

READER = "VPOS3356-E001"
NOBODY = 65534

OTHER_USER = textwrap.dedent("""
    import os, sys
    sys.path.insert(0, os.environ["CARDREADER_STUBS"])
    import grpc
    from cardreader.v1 import readers_pb2 as pb, readers_pb2_grpc as rpc
    stub = rpc.ReadersStub(grpc.insecure_channel("unix://" + sys.argv[1]))
    # A client that claims to be root in the headers the daemon uses for its own.
    metadata = [("x-cardreaderd-peer-uid", "0"), ("x-cardreaderd-peer-pid", "1")]
    try:
        stub.ListReaders(pb.ListReadersRequest(), timeout=30, wait_for_ready=True, metadata=metadata)
        print("allowed")
    except grpc.RpcError as error:
        print(error.code().name, error.details())
""")


@pytest.mark.skipif(os.geteuid() != 0, reason="runs a client as another user (needs root)")
def test_a_user_not_in_the_configuration_is_refused(start_daemon):
    # The socket's mode lets anyone connect: the daemon's own check is what refuses.
    daemon = start_daemon(config={"socket": {"mode": "0666"}})
    os.chmod(daemon.directory, 0o755)
    result = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable, "-c", OTHER_USER, daemon.socket],
        capture_output=True, text=True, timeout=EVENT_BOUND, env=os.environ)
    assert result.stdout.startswith("PERMISSION_DENIED user nobody (uid 65534"), result.stdout + result.stderr
    # And once in the configuration, the same user is served.
    daemon.stop()
    daemon = start_daemon(config={"socket": {"mode": "0666"}, "users": ["nobody"]})
    os.chmod(daemon.directory, 0o755)
    result = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable, "-c", OTHER_USER, daemon.socket],
        capture_output=True, text=True, timeout=EVENT_BOUND, env=os.environ)
    assert result.stdout.strip() == "allowed", result.stdout + result.stderr


def test_a_reveal_is_refused_then_allowed_and_logged_without_the_data(start_daemon):
    refusing = start_daemon(["--emulated-fleet", "1"]).stub()
    _, info = fails(lambda: refusing.Swipe(pb.SwipeRequest(reader=READER, reveal=True), timeout=EVENT_BOUND, wait_for_ready=True),
                    grpc.StatusCode.PERMISSION_DENIED, "reveal-not-allowed")
    assert "reveal list" in info.metadata["fix"]
    daemon = start_daemon(["--emulated-fleet", "1"], config={"reveal": ["root"]})
    stub = daemon.stub()
    swipe = stub.Swipe(pb.SwipeRequest(reader=READER, reveal=True), timeout=EVENT_BOUND, wait_for_ready=True)
    assert swipe.revealed and swipe.track2.primary_account_number == "4111111111111111"
    assert swipe.track1.cardholder_name
    line = daemon.wait_for_line("card data revealed")
    assert "root" in line and READER in line
    assert "4111111111111111" not in daemon.log()
    assert swipe.track1.cardholder_name not in daemon.log()


def test_transmit_needs_the_reveal_permission(start_daemon):
    stub = start_daemon(["--emulated-fleet", "1", "--scenario", "card-inserted"]).stub()
    hold = stub.Hold(pb.HoldRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True)
    lease = next(hold).lease.lease_id
    stub.PowerOn(pb.PowerOnRequest(reader=READER, lease_id=lease), timeout=EVENT_BOUND)
    fails(lambda: stub.Transmit(pb.TransmitRequest(reader=READER, lease_id=lease, apdu=bytes.fromhex("00A4040000")), timeout=EVENT_BOUND),
          grpc.StatusCode.PERMISSION_DENIED, "reveal-not-allowed")
    hold.cancel()


def make_certificates(directory):
    """A shop CA, the daemon's server certificate, a client certificate signed by the CA,
    and one signed by another CA: with openssl, independently of the daemon."""
    def run(*arguments):
        subprocess.run(["openssl", *arguments], cwd=directory, check=True, capture_output=True)
    for ca in ("ca", "other-ca"):
        run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{ca}.key",
            "-out", f"{ca}.pem", "-days", "2", "-subj", f"/CN={ca}")
    for name, ca in (("server", "ca"), ("backend", "ca"), ("stranger", "other-ca")):
        run("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", f"{name}.key",
            "-out", f"{name}.csr", "-subj", f"/CN={name}")
        with open(os.path.join(directory, f"{name}.ext"), "w") as extensions:
            extensions.write("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
        run("x509", "-req", "-in", f"{name}.csr", "-CA", f"{ca}.pem", "-CAkey", f"{ca}.key", "-CAcreateserial",
            "-out", f"{name}.pem", "-days", "2", "-extfile", f"{name}.ext")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_tcp_is_mutual_tls_only(start_daemon):
    directory = tempfile.mkdtemp(prefix="cardreaderd-tls-")
    make_certificates(directory)
    port = free_port()
    path = lambda name: os.path.join(directory, name)  # noqa: E731
    start_daemon(["--emulated-fleet", "1"], config={
        "users": ["CN=backend"],
        "tcp": {"address": f"127.0.0.1:{port}", "certificate": path("server.pem"), "privateKey": path("server.key"),
                "clientCA": path("ca.pem")},
    })
    read = lambda name: open(path(name), "rb").read()  # noqa: E731

    def stub(certificate=None):
        credentials = grpc.ssl_channel_credentials(
            root_certificates=read("ca.pem"),
            private_key=read(f"{certificate}.key") if certificate else None,
            certificate_chain=read(f"{certificate}.pem") if certificate else None)
        return rpc.ReadersStub(grpc.secure_channel(f"localhost:{port}", credentials))

    # The shop's backend, with its certificate: served, as the subject the configuration names.
    assert stub("backend").Info(pb.InfoRequest(reader=READER), timeout=EVENT_BOUND, wait_for_ready=True).model == "VPOS3356"
    # No certificate, or one another CA signed: the handshake fails, nothing is served.
    for certificate in (None, "stranger"):
        with pytest.raises(grpc.RpcError) as raised:
            stub(certificate).Info(pb.InfoRequest(reader=READER), timeout=5)
        assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
    # Plaintext to the TLS port: nothing either.
    with pytest.raises(grpc.RpcError) as raised:
        rpc.ReadersStub(grpc.insecure_channel(f"127.0.0.1:{port}")).Info(pb.InfoRequest(reader=READER), timeout=5)
    assert raised.value.code() == grpc.StatusCode.UNAVAILABLE
