"""gRPC steps of the differential corpus: the official client library's messages (from the
pinned google-cloud-firestore) and grpcio, raw enough that every answer is seen as it came.
Requests are written in proto3 JSON; answers come back as proto3 JSON too (the REST
normaliser then treats both protocols alike). Importing this module fails without grpcio,
which the runner takes as "skip the gRPC cases"."""
import queue
import threading
import time

import grpc
from google.cloud.firestore_v1.types import document as document_types
from google.cloud.firestore_v1.types import firestore as fs
from google.protobuf import empty_pb2, json_format

SERVICE = "/google.firestore.v1.Firestore/"

# method -> (request class, response class, shape)
METHODS = {
    "GetDocument": (fs.GetDocumentRequest, document_types.Document, "unary"),
    "ListDocuments": (fs.ListDocumentsRequest, fs.ListDocumentsResponse, "unary"),
    "CreateDocument": (fs.CreateDocumentRequest, document_types.Document, "unary"),
    "UpdateDocument": (fs.UpdateDocumentRequest, document_types.Document, "unary"),
    "DeleteDocument": (fs.DeleteDocumentRequest, None, "unary"),
    "BatchGetDocuments": (fs.BatchGetDocumentsRequest, fs.BatchGetDocumentsResponse, "server"),
    "BeginTransaction": (fs.BeginTransactionRequest, fs.BeginTransactionResponse, "unary"),
    "Commit": (fs.CommitRequest, fs.CommitResponse, "unary"),
    "Rollback": (fs.RollbackRequest, None, "unary"),
    "RunQuery": (fs.RunQueryRequest, fs.RunQueryResponse, "server"),
    "RunAggregationQuery": (fs.RunAggregationQueryRequest, fs.RunAggregationQueryResponse, "server"),
    "PartitionQuery": (fs.PartitionQueryRequest, fs.PartitionQueryResponse, "unary"),
    "ListCollectionIds": (fs.ListCollectionIdsRequest, fs.ListCollectionIdsResponse, "unary"),
    "BatchWrite": (fs.BatchWriteRequest, fs.BatchWriteResponse, "unary"),
    "Listen": (fs.ListenRequest, fs.ListenResponse, "bidi"),
    "Write": (fs.WriteRequest, fs.WriteResponse, "bidi"),
}


def encode(cls, message):
    """proto3 JSON (or {"$raw": base64} for bytes written by hand) -> wire bytes."""
    if isinstance(message, dict) and "$raw" in message:
        import base64
        return base64.b64decode(message["$raw"])
    return json_format.ParseDict(message, cls.pb()()).SerializeToString()


def decode(cls, data):
    if cls is None:
        return json_format.MessageToDict(empty_pb2.Empty.FromString(data))
    return json_format.MessageToDict(cls.pb().FromString(data))


def metadata_of(step):
    meta = dict(step.get("metadata", {"authorization": "Bearer owner"}))
    return [(k, v) for k, v in meta.items() if v is not None]


def status_answer(answer, error):
    if error is None:
        answer["code"] = "OK"
    else:
        answer["code"] = error.code().name
        answer["message"] = error.details() or ""
    return answer


class Client:
    def __init__(self, host):
        self.channel = grpc.insecure_channel(host, options=[("grpc.max_receive_message_length", -1),
                                                            ("grpc.max_send_message_length", -1),
                                                            ("grpc.enable_retries", 0)])

    def unary(self, step):
        request_cls, response_cls, shape = METHODS[step["method"]]
        path = step.get("path", SERVICE + step["method"])
        ident = lambda b: b  # noqa: E731
        compression = grpc.Compression.Gzip if step.get("compression") == "gzip" else None
        answer = {"messages": []}
        try:
            body = encode(request_cls, step["request"])
        except json_format.ParseError as e:
            raise SystemExit(f"case step has a request the official message does not take: {e}")
        try:
            if shape == "unary":
                call = self.channel.unary_unary(path, request_serializer=ident, response_deserializer=ident)
                data = call(body, metadata=metadata_of(step), timeout=step.get("timeout", 10), compression=compression)
                answer["messages"].append(decode(response_cls, data))
            else:
                call = self.channel.unary_stream(path, request_serializer=ident, response_deserializer=ident)
                for data in call(body, metadata=metadata_of(step), timeout=step.get("timeout", 10), compression=compression):
                    answer["messages"].append(decode(response_cls, data))
            return status_answer(answer, None)
        except grpc.RpcError as e:
            return status_answer(answer, e)

    def open(self, step):
        return Stream(self.channel, step)


class Stream:
    """A bidirectional call: requests queued by send(), responses gathered by a thread."""

    def __init__(self, channel, step):
        request_cls, response_cls, _ = METHODS[step["method"]]
        self.request_cls, self.response_cls = request_cls, response_cls
        self.requests = queue.Queue()
        self.received = []
        self.delivered = 0
        self.lock = threading.Condition()
        self.error = None
        self.done = False
        ident = lambda b: b  # noqa: E731
        call = channel.stream_stream(SERVICE + step["method"], request_serializer=ident, response_deserializer=ident)

        def requests():
            while True:
                item = self.requests.get()
                if item is None:
                    return
                yield item

        self.call = call(requests(), metadata=metadata_of(step))
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        try:
            for data in self.call:
                with self.lock:
                    self.received.append(decode(self.response_cls, data))
                    self.lock.notify_all()
        except grpc.RpcError as e:
            with self.lock:
                self.error = e
        with self.lock:
            self.done = True
            self.lock.notify_all()

    def send(self, message):
        self.requests.put(encode(self.request_cls, message))

    def receive(self, quiet, count=None):
        """What arrived since the last receive, once nothing more came for `quiet` seconds
        (or `count` messages arrived), within 10 s."""
        deadline = time.time() + 10
        with self.lock:
            last = len(self.received)
            while time.time() < deadline and not self.done:
                if count is not None and len(self.received) - self.delivered >= count:
                    break
                self.lock.wait(timeout=quiet)
                if len(self.received) == last and (count is None or len(self.received) > self.delivered):
                    break
                last = len(self.received)
            out = self.received[self.delivered:]
            self.delivered = len(self.received)
            answer = {"messages": out}
            if self.done:
                status_answer(answer, self.error)
            return answer

    def finish(self, quiet):
        """Half-closes, then waits for the end of the call: its remaining messages and status."""
        self.requests.put(None)
        self.thread.join(timeout=10)
        with self.lock:
            out = self.received[self.delivered:]
            self.delivered = len(self.received)
            return status_answer({"messages": out}, self.error) if self.done else {"messages": out, "code": "TIMEOUT"}

    def cancel(self):
        self.requests.put(None)
        self.call.cancel()
