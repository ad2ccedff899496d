"""A loopback OTLP logs receiver for tests/otel.rs, decoding with the official Python bindings
(opentelemetry-proto), not with wicket's code.

    python receiver.py OUT_FILE PROTOCOL [PORT [CERT KEY]]

PROTOCOL: http (protobuf and JSON bodies on POST /v1/logs) or grpc; with CERT and KEY (PEM
files), HTTP is served over TLS. Each request is written to
OUT_FILE as one line of OTLP JSON (what a Collector's file exporter writes), flushed and
fsynced before the answer, so what was acknowledged is on disk. Prints "listening PORT" once
ready; PORT 0 (the default) picks a free one.
"""

import os
import sys
from concurrent import futures
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from threading import Lock

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1 import logs_service_pb2

OUT, PROTOCOL = sys.argv[1], sys.argv[2]
PORT = int(sys.argv[3]) if len(sys.argv) > 3 else 0
TLS = sys.argv[4:6] if len(sys.argv) > 5 else None
lock = Lock()


def keep(request):
    line = json_format.MessageToJson(request, indent=None).replace("\n", " ")
    with lock:
        with open(OUT, "a", encoding="utf-8") as f:
            f.write(line + "\n")
            f.flush()
            os.fsync(f.fileno())


class Http(BaseHTTPRequestHandler):
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        kind = self.headers.get("Content-Type", "")
        if self.path != "/v1/logs":
            self.send_error(404)
            return
        request = logs_service_pb2.ExportLogsServiceRequest()
        if kind.startswith("application/json"):
            json_format.Parse(body.decode("utf-8"), request)
            answer, answer_kind = b"{}", "application/json"
        else:
            request.ParseFromString(body)
            answer = logs_service_pb2.ExportLogsServiceResponse().SerializeToString()
            answer_kind = "application/x-protobuf"
        keep(request)
        self.send_response(200)
        self.send_header("Content-Type", answer_kind)
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args):
        pass


def serve_http():
    ThreadingHTTPServer.allow_reuse_address = True
    server = ThreadingHTTPServer(("127.0.0.1", PORT), Http)
    if TLS:
        import ssl

        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(TLS[0], TLS[1])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print("listening", server.server_address[1], flush=True)
    server.serve_forever()


def serve_grpc():
    import grpc
    from opentelemetry.proto.collector.logs.v1 import logs_service_pb2_grpc

    class Logs(logs_service_pb2_grpc.LogsServiceServicer):
        def Export(self, request, context):
            keep(request)
            return logs_service_pb2.ExportLogsServiceResponse()

    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
    logs_service_pb2_grpc.add_LogsServiceServicer_to_server(Logs(), server)
    port = server.add_insecure_port(f"127.0.0.1:{PORT}")
    server.start()
    print("listening", port, flush=True)
    server.wait_for_termination()


if PROTOCOL == "grpc":
    serve_grpc()
else:
    serve_http()
