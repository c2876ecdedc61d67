// A Firestore client over grpc-java's Netty transport (plaintext HTTP/2), run against
// `hearth serve` by Tests/Compat/java-client.sh. grpc-java is a third HTTP/2 stack (after
// the Python client's C core and grpc-go), with its own flow-control window updates, BDP
// pings, SETTINGS and cancellation habits; this program drives every Firestore RPC a Java
// SDK uses through it and checks the answers' contents, not just their status.
//
// No generated code: the Firestore messages come from a FileDescriptorSet (argument 2,
// written at CI time from the installed Python client's descriptors), requests are built
// from JSON with protobuf-java's JsonFormat into DynamicMessages, and each RPC is a
// hand-made MethodDescriptor for /google.firestore.v1.Firestore/<Method>.
//
// Usage: java FirestoreCheck HOST:PORT DESCRIPTORS.bin
// Prints one line per failed check and "java-client: passed (N checks)" when all pass;
// exits 1 on any failure.

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Empty;
import com.google.protobuf.util.JsonFormat;
import io.grpc.CallOptions;
import io.grpc.Channel;
import io.grpc.ClientCall;
import io.grpc.ClientInterceptor;
import io.grpc.ClientInterceptors;
import io.grpc.ForwardingClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.MethodDescriptor.MethodType;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

public final class FirestoreCheck {
    static final String PROJECT = "demo-java";
    static final String DATABASE = "projects/" + PROJECT + "/databases/(default)";
    static final String DOCS = DATABASE + "/documents";
    static final String SERVICE = "google.firestore.v1.Firestore";
    // A wait for something the server should send promptly; far longer than it needs.
    static final long WAIT_SECONDS = 10;

    final Map<String, Descriptor> types = new HashMap<>();
    JsonFormat.TypeRegistry registry;
    Channel channel;
    String target;
    int checks = 0;
    final List<String> failures = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        FirestoreCheck check = new FirestoreCheck();
        check.loadDescriptors(Path.of(args[1]));
        ManagedChannel managed = NettyChannelBuilder.forTarget(args[0]).usePlaintext()
                .maxInboundMessageSize(16 << 20).build();
        check.channel = ClientInterceptors.intercept(managed, emulatorHeaders());
        check.target = args[0];
        long start = System.nanoTime();
        try {
            check.runAll();
        } catch (Throwable error) {
            check.failures.add("aborted: " + error);
            error.printStackTrace();
        } finally {
            managed.shutdownNow();
            managed.awaitTermination(5, TimeUnit.SECONDS);
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        if (!check.failures.isEmpty()) {
            for (String failure : check.failures) System.out.println("FAILED: " + failure);
            System.out.println("java-client: failed (" + check.failures.size() + " of " + check.checks
                    + " checks, " + millis + " ms)");
            System.exit(1);
        }
        System.out.println("java-client: passed (" + check.checks + " checks, " + millis + " ms)");
    }

    // What the Java SDK sends to an emulator: the owner token (which bypasses rules) and the
    // resource prefix header.
    static ClientInterceptor emulatorHeaders() {
        Metadata.Key<String> authorization = Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);
        Metadata.Key<String> prefix = Metadata.Key.of("google-cloud-resource-prefix", Metadata.ASCII_STRING_MARSHALLER);
        return new ClientInterceptor() {
            @Override
            public <Q, R> ClientCall<Q, R> interceptCall(MethodDescriptor<Q, R> method, CallOptions options, Channel next) {
                return new ForwardingClientCall.SimpleForwardingClientCall<Q, R>(next.newCall(method, options)) {
                    @Override
                    public void start(Listener<R> listener, Metadata headers) {
                        headers.put(authorization, "Bearer owner");
                        headers.put(prefix, DATABASE);
                        super.start(listener, headers);
                    }
                };
            }
        };
    }

    void loadDescriptors(Path path) throws Exception {
        FileDescriptorSet set = FileDescriptorSet.parseFrom(Files.readAllBytes(path));
        // The set lists each file after its dependencies.
        Map<String, FileDescriptor> built = new HashMap<>();
        JsonFormat.TypeRegistry.Builder registryBuilder = JsonFormat.TypeRegistry.newBuilder();
        for (FileDescriptorProto proto : set.getFileList()) {
            FileDescriptor[] deps = proto.getDependencyList().stream().map(built::get).toArray(FileDescriptor[]::new);
            FileDescriptor file = FileDescriptor.buildFrom(proto, deps);
            built.put(proto.getName(), file);
            for (Descriptor type : file.getMessageTypes()) types.put(type.getFullName(), type);
            registryBuilder.add(file.getMessageTypes());
        }
        types.put("google.protobuf.Empty", Empty.getDescriptor());
        registry = registryBuilder.build();
    }

    // ---- messages and methods -------------------------------------------------------------

    Descriptor type(String name) {
        Descriptor type = types.get(name.contains(".") ? name : "google.firestore.v1." + name);
        if (type == null) throw new IllegalArgumentException("no message type " + name);
        return type;
    }

    DynamicMessage msg(String typeName, String json) {
        DynamicMessage.Builder builder = DynamicMessage.newBuilder(type(typeName));
        try {
            JsonFormat.parser().usingTypeRegistry(registry).merge(json, builder);
        } catch (IOException error) {
            throw new IllegalArgumentException("bad JSON for " + typeName + ": " + error.getMessage() + "\n" + json);
        }
        return builder.build();
    }

    JsonObject json(DynamicMessage message) {
        try {
            return JsonParser.parseString(JsonFormat.printer().usingTypeRegistry(registry).print(message)).getAsJsonObject();
        } catch (IOException error) {
            throw new IllegalStateException(error);
        }
    }

    MethodDescriptor<DynamicMessage, DynamicMessage> method(String name, MethodType kind, String request, String response) {
        return MethodDescriptor.<DynamicMessage, DynamicMessage>newBuilder()
                .setType(kind)
                .setFullMethodName(MethodDescriptor.generateFullMethodName(SERVICE, name))
                .setRequestMarshaller(marshaller(type(request)))
                .setResponseMarshaller(marshaller(type(response)))
                .build();
    }

    static MethodDescriptor.Marshaller<DynamicMessage> marshaller(Descriptor type) {
        return new MethodDescriptor.Marshaller<>() {
            @Override
            public InputStream stream(DynamicMessage value) {
                return new ByteArrayInputStream(value.toByteArray());
            }

            @Override
            public DynamicMessage parse(InputStream stream) {
                try {
                    return DynamicMessage.parseFrom(type, stream);
                } catch (IOException error) {
                    throw Status.INTERNAL.withDescription("unparsable " + type.getFullName()).withCause(error).asRuntimeException();
                }
            }
        };
    }

    MethodDescriptor<DynamicMessage, DynamicMessage> getDocument, listDocuments, commit, beginTransaction, rollback;
    MethodDescriptor<DynamicMessage, DynamicMessage> batchGet, runQuery, runAggregation, listen, write;

    void makeMethods() {
        getDocument = method("GetDocument", MethodType.UNARY, "GetDocumentRequest", "Document");
        listDocuments = method("ListDocuments", MethodType.UNARY, "ListDocumentsRequest", "ListDocumentsResponse");
        commit = method("Commit", MethodType.UNARY, "CommitRequest", "CommitResponse");
        beginTransaction = method("BeginTransaction", MethodType.UNARY, "BeginTransactionRequest", "BeginTransactionResponse");
        rollback = method("Rollback", MethodType.UNARY, "RollbackRequest", "google.protobuf.Empty");
        batchGet = method("BatchGetDocuments", MethodType.SERVER_STREAMING, "BatchGetDocumentsRequest", "BatchGetDocumentsResponse");
        runQuery = method("RunQuery", MethodType.SERVER_STREAMING, "RunQueryRequest", "RunQueryResponse");
        runAggregation = method("RunAggregationQuery", MethodType.SERVER_STREAMING, "RunAggregationQueryRequest", "RunAggregationQueryResponse");
        listen = method("Listen", MethodType.BIDI_STREAMING, "ListenRequest", "ListenResponse");
        write = method("Write", MethodType.BIDI_STREAMING, "WriteRequest", "WriteResponse");
    }

    JsonObject unary(MethodDescriptor<DynamicMessage, DynamicMessage> method, String requestType, String json) {
        return json(ClientCalls.blockingUnaryCall(channel, method, CallOptions.DEFAULT.withDeadlineAfter(WAIT_SECONDS, TimeUnit.SECONDS), msg(requestType, json)));
    }

    List<JsonObject> streaming(MethodDescriptor<DynamicMessage, DynamicMessage> method, String requestType, String json) {
        List<JsonObject> out = new ArrayList<>();
        Iterator<DynamicMessage> responses = ClientCalls.blockingServerStreamingCall(channel, method,
                CallOptions.DEFAULT.withDeadlineAfter(WAIT_SECONDS, TimeUnit.SECONDS), msg(requestType, json));
        while (responses.hasNext()) out.add(json(responses.next()));
        return out;
    }

    /** The status a call ends with (OK when it succeeds). */
    static Status statusOf(Runnable call) {
        try {
            call.run();
            return Status.OK;
        } catch (StatusRuntimeException error) {
            return error.getStatus();
        }
    }

    // ---- checking ---------------------------------------------------------------------------

    void check(String what, boolean ok, Object detail) {
        checks++;
        if (!ok) failures.add(what + " — got " + detail);
    }

    static String path(JsonElement root, String dotted) {
        JsonElement at = root;
        for (String part : dotted.split("\\.")) {
            if (at == null || at.isJsonNull()) return null;
            if (at.isJsonArray()) {
                JsonArray array = at.getAsJsonArray();
                int index = Integer.parseInt(part);
                at = index < array.size() ? array.get(index) : null;
            } else if (at.isJsonObject()) {
                at = at.getAsJsonObject().get(part);
            } else {
                return null;
            }
        }
        if (at == null || at.isJsonNull()) return null;
        return at.isJsonPrimitive() ? at.getAsString() : at.toString();
    }

    static String clip(String text) {
        return text.length() <= 200 ? text : text.substring(0, 200) + "…";
    }

    static String doc(String id) {
        return DOCS + "/" + id;
    }

    static String city(String id, String name, String state, long population) {
        return """
            {"update": {"name": "%s", "fields": {
                "name": {"stringValue": "%s"}, "state": {"stringValue": "%s"},
                "population": {"integerValue": "%d"}}}}""".formatted(doc("cities/" + id), name, state, population);
    }

    JsonObject commitWrites(String... writes) {
        return unary(commit, "CommitRequest", """
            {"database": "%s", "writes": [%s]}""".formatted(DATABASE, String.join(",", writes)));
    }

    JsonObject get(String id) {
        return unary(getDocument, "GetDocumentRequest", "{\"name\": \"" + doc(id) + "\"}");
    }

    // ---- the checks -------------------------------------------------------------------------

    void runAll() throws Exception {
        makeMethods();
        writes();
        reads();
        queries();
        transactions();
        listenStream();
        writeStream();
        largeMessages();
        multiplexed();
        concurrentStreams();
        compressed();
        cancelBlockedStream();
        bigListen();
        pipelinedWrites();
        listenStorm();
        listenerChurn();
        idleReconnect();
        deadlines();
        cancelledListen();
        badRequests();
        faults();
    }

    void writes() {
        JsonObject result = commitWrites(city("SF", "San Francisco", "CA", 860000), city("LA", "Los Angeles", "CA", 3900000),
                city("NYC", "New York", "NY", 8400000), city("TOK", "Tokyo", "JP", 14000000));
        check("Commit of 4 sets answers 4 write results", result.getAsJsonArray("writeResults").size() == 4, result);
        check("Commit answers a commit time", path(result, "commitTime") != null, result);

        // An update with a mask changes only the masked fields; "extra" is not in the mask.
        commitWrites("""
            {"update": {"name": "%s", "fields": {"population": {"integerValue": "870000"}, "extra": {"stringValue": "x"}}},
             "updateMask": {"fieldPaths": ["population"]}, "currentDocument": {"exists": true}}""".formatted(doc("cities/SF")));
        JsonObject sf = get("cities/SF");
        check("update with mask sets the masked field", "870000".equals(path(sf, "fields.population.integerValue")), sf);
        check("update with mask keeps unmasked fields", "San Francisco".equals(path(sf, "fields.name.stringValue")), sf);
        check("update with mask ignores fields outside it", path(sf, "fields.extra") == null, sf);

        JsonObject transformed = commitWrites("""
            {"update": {"name": "%s", "fields": {}}, "updateMask": {"fieldPaths": []},
             "updateTransforms": [
               {"fieldPath": "visits", "increment": {"integerValue": "5"}},
               {"fieldPath": "updated", "setToServerValue": "REQUEST_TIME"},
               {"fieldPath": "tags", "appendMissingElements": {"values": [{"stringValue": "a"}, {"stringValue": "b"}]}}]}"""
                .formatted(doc("cities/SF")));
        check("transforms answer their results", "5".equals(path(transformed, "writeResults.0.transformResults.0.integerValue"))
                && path(transformed, "writeResults.0.transformResults.1.timestampValue") != null, transformed);
        sf = get("cities/SF");
        check("increment transform is stored", "5".equals(path(sf, "fields.visits.integerValue")), sf);
        check("server timestamp transform is stored", path(sf, "fields.updated.timestampValue") != null, sf);
        check("array union transform is stored", "b".equals(path(sf, "fields.tags.arrayValue.values.1.stringValue")), sf);

        commitWrites("{\"delete\": \"" + doc("cities/TOK") + "\"}");
        Status deleted = statusOf(() -> get("cities/TOK"));
        check("GetDocument of a deleted document is NOT_FOUND", deleted.getCode() == Status.Code.NOT_FOUND, deleted);
    }

    void reads() {
        JsonObject masked = unary(getDocument, "GetDocumentRequest", """
            {"name": "%s", "mask": {"fieldPaths": ["state"]}}""".formatted(doc("cities/LA")));
        check("GetDocument with a mask returns only the masked fields",
                "CA".equals(path(masked, "fields.state.stringValue")) && path(masked, "fields.name") == null, masked);
        check("GetDocument answers times", path(masked, "createTime") != null && path(masked, "updateTime") != null, masked);

        List<JsonObject> batch = streaming(batchGet, "BatchGetDocumentsRequest", """
            {"database": "%s", "documents": ["%s", "%s", "%s"]}""".formatted(DATABASE, doc("cities/SF"), doc("cities/TOK"), doc("cities/LA")));
        long found = batch.stream().filter(r -> r.has("found")).count();
        long missing = batch.stream().filter(r -> doc("cities/TOK").equals(path(r, "missing"))).count();
        check("BatchGetDocuments streams one answer per document", batch.size() == 3, batch);
        check("BatchGetDocuments finds 2 and reports TOK missing", found == 2 && missing == 1, batch);
        check("BatchGetDocuments answers read times", batch.stream().allMatch(r -> r.has("readTime")), batch);

        JsonObject page1 = unary(listDocuments, "ListDocumentsRequest", """
            {"parent": "%s", "collectionId": "cities", "pageSize": 2}""".formatted(DOCS));
        check("ListDocuments pages by pageSize", page1.getAsJsonArray("documents").size() == 2
                && path(page1, "nextPageToken") != null, page1);
        JsonObject page2 = unary(listDocuments, "ListDocumentsRequest", """
            {"parent": "%s", "collectionId": "cities", "pageSize": 2, "pageToken": "%s"}"""
                .formatted(DOCS, path(page1, "nextPageToken")));
        check("ListDocuments' second page holds the rest", page2.has("documents") && page2.getAsJsonArray("documents").size() == 1
                && doc("cities/SF").equals(path(page2, "documents.0.name")), page2);
    }

    static String whereState(String state) {
        return """
            "where": {"fieldFilter": {"field": {"fieldPath": "state"}, "op": "EQUAL", "value": {"stringValue": "%s"}}}"""
                .formatted(state);
    }

    void queries() {
        List<JsonObject> top = streaming(runQuery, "RunQueryRequest", """
            {"parent": "%s", "structuredQuery": {"from": [{"collectionId": "cities"}], %s,
             "orderBy": [{"field": {"fieldPath": "population"}, "direction": "DESCENDING"}], "limit": 1}}"""
                .formatted(DOCS, whereState("CA")));
        List<JsonObject> docs = top.stream().filter(r -> r.has("document")).toList();
        check("RunQuery with filter, order and limit finds LA", docs.size() == 1
                && doc("cities/LA").equals(path(docs.get(0), "document.name")), top);

        List<JsonObject> big = streaming(runQuery, "RunQueryRequest", """
            {"parent": "%s", "structuredQuery": {"from": [{"collectionId": "cities"}],
             "where": {"fieldFilter": {"field": {"fieldPath": "population"}, "op": "GREATER_THAN", "value": {"integerValue": "1000000"}}},
             "orderBy": [{"field": {"fieldPath": "population"}}]}}""".formatted(DOCS));
        List<String> names = big.stream().filter(r -> r.has("document")).map(r -> path(r, "document.name")).toList();
        check("RunQuery with a range filter streams LA then NYC", names.equals(List.of(doc("cities/LA"), doc("cities/NYC"))), big);

        List<JsonObject> count = streaming(runAggregation, "RunAggregationQueryRequest", """
            {"parent": "%s", "structuredAggregationQuery": {
               "structuredQuery": {"from": [{"collectionId": "cities"}], %s},
               "aggregations": [{"alias": "n", "count": {}}]}}""".formatted(DOCS, whereState("CA")));
        String n = count.stream().map(r -> path(r, "result.aggregateFields.n.integerValue")).filter(v -> v != null).findFirst().orElse(null);
        check("RunAggregationQuery counts 2 Californian cities", "2".equals(n), count);
    }

    void transactions() {
        JsonObject begun = unary(beginTransaction, "BeginTransactionRequest", "{\"database\": \"" + DATABASE + "\"}");
        String tx = path(begun, "transaction");
        check("BeginTransaction answers a transaction id", tx != null && !tx.isEmpty(), begun);
        JsonObject read = unary(getDocument, "GetDocumentRequest", """
            {"name": "%s", "transaction": "%s"}""".formatted(doc("cities/LA"), tx));
        check("GetDocument in a transaction reads", "Los Angeles".equals(path(read, "fields.name.stringValue")), read);
        JsonObject committed = unary(commit, "CommitRequest", """
            {"database": "%s", "transaction": "%s", "writes": [%s]}""".formatted(DATABASE, tx, city("TX", "Texcoco", "MX", 100000)));
        check("Commit of a transaction applies its write", committed.getAsJsonArray("writeResults").size() == 1
                && "Texcoco".equals(path(get("cities/TX"), "fields.name.stringValue")), committed);

        JsonObject second = unary(beginTransaction, "BeginTransactionRequest", "{\"database\": \"" + DATABASE + "\"}");
        String tx2 = path(second, "transaction");
        Status rolledBack = statusOf(() -> unary(rollback, "RollbackRequest", """
            {"database": "%s", "transaction": "%s"}""".formatted(DATABASE, tx2)));
        check("Rollback succeeds", rolledBack.isOk(), rolledBack);
        Status reused = statusOf(() -> unary(commit, "CommitRequest", """
            {"database": "%s", "transaction": "%s", "writes": [%s]}""".formatted(DATABASE, tx2, city("RB", "Rolled", "XX", 1))));
        check("Commit of a rolled-back transaction fails", !reused.isOk(), reused);
        check("a rolled-back transaction's write is not applied",
                statusOf(() -> get("cities/RB")).getCode() == Status.Code.NOT_FOUND, "cities/RB exists");
    }

    /** A bidirectional call whose responses and end land in a queue. */
    final class Bidi {
        final LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
        final ClientCallStreamObserver<DynamicMessage> requests;
        final String requestType;

        @SuppressWarnings("unchecked")
        Bidi(MethodDescriptor<DynamicMessage, DynamicMessage> method, String requestType, CallOptions options) {
            this.requestType = requestType;
            StreamObserver<DynamicMessage> sender = ClientCalls.asyncBidiStreamingCall(channel.newCall(method, options),
                    new ClientResponseObserver<DynamicMessage, DynamicMessage>() {
                        @Override
                        public void beforeStart(ClientCallStreamObserver<DynamicMessage> stream) {
                        }

                        @Override
                        public void onNext(DynamicMessage value) {
                            events.add(json(value));
                        }

                        @Override
                        public void onError(Throwable error) {
                            events.add(Status.fromThrowable(error));
                        }

                        @Override
                        public void onCompleted() {
                            events.add(Status.OK);
                        }
                    });
            requests = (ClientCallStreamObserver<DynamicMessage>) sender;
        }

        void send(String json) {
            requests.onNext(msg(requestType, json));
        }

        /** The next response, or null when the call ended (see `end`) or nothing came in time. */
        JsonObject next() throws InterruptedException {
            return next(WAIT_SECONDS * 1000);
        }

        JsonObject next(long millis) throws InterruptedException {
            Object event = events.poll(millis, TimeUnit.MILLISECONDS);
            if (event instanceof JsonObject response) return response;
            end = event == null ? null : (Status) event;
            return null;
        }

        Status end;

        /** Responses until one satisfies `last` (included); null when the call ended first. */
        List<JsonObject> until(java.util.function.Predicate<JsonObject> last) throws InterruptedException {
            List<JsonObject> seen = new ArrayList<>();
            while (true) {
                JsonObject response = next();
                if (response == null) return null;
                seen.add(response);
                if (last.test(response)) return seen;
            }
        }

        /** How the call ends. */
        Status awaitEnd() throws InterruptedException {
            while (end == null) {
                Object event = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
                if (event == null) return Status.UNKNOWN.withDescription("the call did not end in " + WAIT_SECONDS + " s");
                if (event instanceof Status status) end = status;
            }
            return end;
        }
    }

    static boolean targetChange(JsonObject response, String kind) {
        String type = path(response, "targetChange.targetChangeType");
        if (response.has("targetChange") && type == null) type = "NO_CHANGE";
        return kind.equals(type);
    }

    static boolean globalNoChange(JsonObject response) {
        return targetChange(response, "NO_CHANGE") && !response.getAsJsonObject("targetChange").has("targetIds");
    }

    String californiaTarget(int id) {
        return """
            {"database": "%s", "addTarget": {"targetId": %d, "query": {"parent": "%s",
             "structuredQuery": {"from": [{"collectionId": "cities"}], %s}}}}""".formatted(DATABASE, id, DOCS, whereState("CA"));
    }

    void listenStream() throws InterruptedException {
        Bidi listen = new Bidi(this.listen, "ListenRequest", CallOptions.DEFAULT);
        listen.send(californiaTarget(1));
        List<JsonObject> initial = listen.until(FirestoreCheck::globalNoChange);
        check("Listen answers an initial snapshot", initial != null, listen.end);
        if (initial == null) return;
        check("Listen's first answer adds target 1", targetChange(initial.get(0), "ADD")
                && "1".equals(path(initial.get(0), "targetChange.targetIds.0")), initial);
        List<String> names = initial.stream().filter(r -> r.has("documentChange")).map(r -> path(r, "documentChange.document.name")).sorted().toList();
        check("Listen's initial snapshot holds LA and SF", names.equals(List.of(doc("cities/LA"), doc("cities/SF"))), initial);
        check("Listen marks the target CURRENT", initial.stream().anyMatch(r -> targetChange(r, "CURRENT")), initial);
        check("Listen's snapshot ends with a read time", path(initial.get(initial.size() - 1), "targetChange.readTime") != null, initial);

        commitWrites(city("SD", "San Diego", "CA", 1400000));
        List<JsonObject> change = listen.until(FirestoreCheck::globalNoChange);
        check("Listen streams a change made by another commit", change != null && change.stream().anyMatch(r ->
                doc("cities/SD").equals(path(r, "documentChange.document.name")) && "1".equals(path(r, "documentChange.targetIds.0"))), change);

        listen.send("{\"database\": \"" + DATABASE + "\", \"removeTarget\": 1}");
        List<JsonObject> removed = listen.until(r -> targetChange(r, "REMOVE"));
        check("Listen answers REMOVE for a removed target", removed != null && "1".equals(path(removed.get(removed.size() - 1), "targetChange.targetIds.0")), removed);

        commitWrites(city("SJ", "San Jose", "CA", 1000000));
        JsonObject after = listen.next(1000);
        // After the removal nothing more should arrive for target 1; at most a global NO_CHANGE.
        check("Listen sends nothing for a removed target", after == null && listen.end == null
                || after != null && !after.has("documentChange"), after);
        listen.requests.onCompleted();
        Status end = listen.awaitEnd();
        check("Listen ends OK when the client half-closes", end.isOk(), end);
    }

    void writeStream() throws InterruptedException {
        Bidi stream = new Bidi(write, "WriteRequest", CallOptions.DEFAULT);
        stream.send("{\"database\": \"" + DATABASE + "\"}");
        JsonObject handshake = stream.next();
        check("Write handshake answers a stream id and token", handshake != null && path(handshake, "streamId") != null
                && path(handshake, "streamToken") != null, handshake != null ? handshake : stream.end);
        if (handshake == null) return;
        stream.send("""
            {"streamToken": "%s", "writes": [%s]}""".formatted(path(handshake, "streamToken"), city("WS", "Written", "WS", 7)));
        JsonObject answer = stream.next();
        check("Write stream answers its write", answer != null && answer.getAsJsonArray("writeResults").size() == 1
                && path(answer, "commitTime") != null && path(answer, "streamToken") != null, answer != null ? answer : stream.end);
        check("Write stream's write is stored", "Written".equals(path(get("cities/WS"), "fields.name.stringValue")), "cities/WS");
        stream.requests.onCompleted();
        Status end = stream.awaitEnd();
        check("Write stream ends OK when the client half-closes", end.isOk(), end);
    }

    // Bigger than HTTP/2's initial 64 KiB windows, both ways, so flow control must work.
    void largeMessages() {
        String blob = "x".repeat(900_000);
        commitWrites("""
            {"update": {"name": "%s", "fields": {"blob": {"stringValue": "%s"}}}}""".formatted(doc("blobs/big"), blob));
        JsonObject big = get("blobs/big");
        check("a 900 KB document goes and comes back whole", blob.equals(path(big, "fields.blob.stringValue")), "a different blob");

        // One 4.5 MB Commit: more than a stream's receive window, so the server must widen
        // it for the message. Production takes requests up to 10 MiB (the official
        // emulator, a grpc-java server with its default limit, refuses past 4 MiB).
        List<String> bigWrites = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            bigWrites.add("""
                {"update": {"name": "%s", "fields": {"blob": {"stringValue": "%s"}}}}""".formatted(doc("blobs/b" + i), blob));
        }
        Status bigCommit = statusOf(() -> commitWrites(bigWrites.toArray(String[]::new)));
        check("a 4.5 MB Commit of 5 documents is applied", bigCommit.isOk()
                && blob.equals(path(get("blobs/b4"), "fields.blob.stringValue")), bigCommit);

        StringBuilder writes = new StringBuilder();
        String chunk = "y".repeat(20_000);
        for (int i = 0; i < 100; i++) {
            if (i > 0) writes.append(',');
            writes.append("""
                {"update": {"name": "%s", "fields": {"i": {"integerValue": "%d"}, "pad": {"stringValue": "%s"}}}}"""
                    .formatted(doc("many/d" + String.format("%03d", i)), i, chunk));
        }
        commitWrites(writes.toString());
        List<JsonObject> all = streaming(runQuery, "RunQueryRequest", """
            {"parent": "%s", "structuredQuery": {"from": [{"collectionId": "many"}], "orderBy": [{"field": {"fieldPath": "i"}}]}}"""
                .formatted(DOCS));
        List<JsonObject> docs = all.stream().filter(r -> r.has("document")).toList();
        boolean inOrder = docs.size() == 100;
        for (int i = 0; inOrder && i < 100; i++) inOrder = String.valueOf(i).equals(path(docs.get(i), "document.fields.i.integerValue"));
        check("RunQuery streams 100 documents of 20 KB (2 MB) in order", inOrder, docs.size() + " documents");
    }

    void multiplexed() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(8);
        AtomicInteger right = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        String[] ids = {"cities/SF", "cities/LA", "cities/NYC", "cities/SD"};
        List<String> errors = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int i = 0; i < 200; i++) {
            String id = ids[i % ids.length];
            futures.add(pool.submit(() -> {
                try {
                    if (doc(id).equals(path(get(id), "name"))) right.incrementAndGet();
                } catch (RuntimeException error) {
                    errors.add(error.toString());
                }
            }));
        }
        for (Future<?> future : futures) future.get(60, TimeUnit.SECONDS);
        pool.shutdown();
        check("200 GetDocuments from 8 threads on one channel all answer their own document", right.get() == 200,
                right.get() + " right; errors: " + errors.stream().limit(3).toList());
    }

    // More calls at once than a server usually allows concurrent streams (grpc-java queues
    // those past SETTINGS_MAX_CONCURRENT_STREAMS until others end).
    void concurrentStreams() throws Exception {
        List<com.google.common.util.concurrent.ListenableFuture<DynamicMessage>> calls = new ArrayList<>();
        for (int i = 0; i < 500; i++) {
            calls.add(ClientCalls.futureUnaryCall(channel.newCall(getDocument, CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS)),
                    msg("GetDocumentRequest", "{\"name\": \"" + doc("many/d" + String.format("%03d", i % 100)) + "\"}")));
        }
        int right = 0;
        List<String> errors = new ArrayList<>();
        for (int i = 0; i < calls.size(); i++) {
            try {
                if (String.valueOf(i % 100).equals(path(json(calls.get(i).get(60, TimeUnit.SECONDS)), "fields.i.integerValue"))) right++;
            } catch (java.util.concurrent.ExecutionException error) {
                if (errors.size() < 3) errors.add(error.getCause().toString());
            }
        }
        check("500 GetDocuments started at once on one channel all answer", right == 500, right + " right; " + errors);
    }

    // gzip-compressed requests (grpc-encoding: gzip), as a client configured for it sends.
    void compressed() {
        CallOptions gzip = CallOptions.DEFAULT.withCompression("gzip").withDeadlineAfter(WAIT_SECONDS, TimeUnit.SECONDS);
        Status committed = statusOf(() -> ClientCalls.blockingUnaryCall(channel, commit, gzip, msg("CommitRequest", """
            {"database": "%s", "writes": [%s]}""".formatted(DATABASE, city("GZ", "Gzipped", "GZ", 1)))));
        check("a gzip-compressed Commit succeeds", committed.isOk(), committed);
        List<String> names = new ArrayList<>();
        Status queried = statusOf(() -> ClientCalls.blockingServerStreamingCall(channel, runQuery, gzip, msg("RunQueryRequest", """
            {"parent": "%s", "structuredQuery": {"from": [{"collectionId": "cities"}], %s}}""".formatted(DOCS, whereState("GZ"))))
                .forEachRemaining(r -> { String name = path(json(r), "document.name"); if (name != null) names.add(name); }));
        check("a gzip-compressed RunQuery answers", queried.isOk() && names.equals(List.of(doc("cities/GZ"))), queried + " " + names);
    }

    // A client that stops reading a 2 MB result stalls the server on HTTP/2 flow control; its
    // cancel (RST_STREAM) must free that stream, and the connection must go on serving.
    void cancelBlockedStream() throws InterruptedException {
        LinkedBlockingQueue<Object> events = new LinkedBlockingQueue<>();
        ClientCall<DynamicMessage, DynamicMessage> call = channel.newCall(runQuery, CallOptions.DEFAULT);
        call.start(new ClientCall.Listener<DynamicMessage>() {
            @Override
            public void onMessage(DynamicMessage message) {
                events.add(message);
            }

            @Override
            public void onClose(Status status, Metadata trailers) {
                events.add(status);
            }
        }, new Metadata());
        call.request(1); // one response, then no more reading
        call.sendMessage(msg("RunQueryRequest", """
            {"parent": "%s", "structuredQuery": {"from": [{"collectionId": "many"}]}}""".formatted(DOCS)));
        call.halfClose();
        Object first = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
        check("a stalled RunQuery answers its first document", first instanceof DynamicMessage, first);
        Thread.sleep(300); // let the server fill the window and wait on it
        call.cancel("the check stops reading", null);
        Object end = null;
        for (Object event = first; event != null && !(event instanceof Status); ) {
            event = events.poll(WAIT_SECONDS, TimeUnit.SECONDS);
            end = event;
        }
        check("a cancelled stalled RunQuery ends CANCELLED", end instanceof Status status && status.getCode() == Status.Code.CANCELLED, end);
        check("the channel still serves after cancelling a stalled stream",
                "Los Angeles".equals(path(get("cities/LA"), "fields.name.stringValue")), "no LA");
    }

    // A gzip-compressed Listen whose initial snapshot (2 MB) is larger than the windows.
    void bigListen() throws InterruptedException {
        Bidi listen = new Bidi(this.listen, "ListenRequest", CallOptions.DEFAULT.withCompression("gzip"));
        listen.send("""
            {"database": "%s", "addTarget": {"targetId": 7, "query": {"parent": "%s",
             "structuredQuery": {"from": [{"collectionId": "many"}]}}}}""".formatted(DATABASE, DOCS));
        List<JsonObject> initial = listen.until(FirestoreCheck::globalNoChange);
        long docs = initial == null ? -1 : initial.stream().filter(r -> r.has("documentChange")).count();
        check("a gzip Listen streams a 2 MB snapshot of 100 documents", docs == 100, initial == null ? listen.end : docs);
        listen.requests.cancel("done", null);
        listen.awaitEnd();
    }

    // 50 writes sent on a Write stream without waiting: 50 answers, in order, each applied.
    void pipelinedWrites() throws InterruptedException {
        Bidi stream = new Bidi(write, "WriteRequest", CallOptions.DEFAULT);
        stream.send("{\"database\": \"" + DATABASE + "\"}");
        JsonObject handshake = stream.next();
        if (handshake == null) {
            check("Write handshake for pipelined writes", false, stream.end);
            return;
        }
        String token = path(handshake, "streamToken");
        for (int i = 0; i < 50; i++) {
            stream.send("""
                {"streamToken": "%s", "writes": [{"update": {"name": "%s", "fields": {"n": {"integerValue": "%d"}}}}]}"""
                    .formatted(token, doc("piped/p" + i), i));
        }
        int answered = 0;
        List<String> times = new ArrayList<>();
        boolean ordered = true;
        for (int i = 0; i < 50; i++) {
            JsonObject answer = stream.next();
            if (answer == null || answer.getAsJsonArray("writeResults").size() != 1) break;
            String time = path(answer, "commitTime");
            // Compared as instants: JSON prints 3, 6 or 9 fractional digits, so text does not sort.
            ordered &= time != null && (times.isEmpty()
                    || !java.time.Instant.parse(time).isBefore(java.time.Instant.parse(times.get(times.size() - 1))));
            times.add(time);
            answered++;
        }
        check("50 pipelined writes on a Write stream get 50 answers in commit order", answered == 50 && ordered,
                answered + " answers, commit times " + times);
        JsonObject last = get("piped/p49");
        check("the last pipelined write is stored", "49".equals(path(last, "fields.n.integerValue")), last);

        // A 4.5 MB write request on the stream: larger than the stream's window.
        String blob = "w".repeat(900_000);
        List<String> big = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            big.add("""
                {"update": {"name": "%s", "fields": {"blob": {"stringValue": "%s"}}}}""".formatted(doc("piped/big" + i), blob));
        }
        stream.send("""
            {"streamToken": "%s", "writes": [%s]}""".formatted(token, String.join(",", big)));
        JsonObject bigAnswer = stream.next();
        check("a 4.5 MB request on a Write stream is answered and applied", bigAnswer != null
                && bigAnswer.getAsJsonArray("writeResults").size() == 5
                && blob.equals(path(get("piped/big4"), "fields.blob.stringValue")), bigAnswer != null ? "no piped/big4" : stream.end);
        stream.requests.onCompleted();
        stream.awaitEnd();
    }

    // Listens opened and cancelled at once, some before the server has answered anything.
    void listenStorm() throws InterruptedException {
        List<Bidi> listens = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            Bidi listen = new Bidi(this.listen, "ListenRequest", CallOptions.DEFAULT);
            listen.send(californiaTarget(100 + i));
            listens.add(listen);
            if (i % 2 == 0) listen.requests.cancel("storm", null);
        }
        int cancelled = 0;
        for (int i = 0; i < listens.size(); i += 2) if (listens.get(i).awaitEnd().getCode() == Status.Code.CANCELLED) cancelled++;
        int answered = 0;
        for (int i = 1; i < listens.size(); i += 2) if (listens.get(i).until(FirestoreCheck::globalNoChange) != null) answered++;
        for (int i = 1; i < listens.size(); i += 2) listens.get(i).requests.cancel("storm over", null);
        check("of 100 Listens opened at once, the 50 cancelled end CANCELLED and the other 50 answer", cancelled == 50 && answered == 50,
                cancelled + " cancelled, " + answered + " answered");
        commitWrites(city("FRE", "Fresno", "CA", 540000));
        check("the channel still serves after a Listen storm", "Fresno".equals(path(get("cities/FRE"), "fields.name.stringValue")), "no FRE");
    }

    // An app attaching and detaching listeners: each Listen gets its snapshot, then is
    // cancelled (RST_STREAM on a stream the server has answered), 250 times in a row.
    void listenerChurn() throws InterruptedException {
        // A listener left attached throughout must survive the churn beside it.
        Bidi sentinel = new Bidi(this.listen, "ListenRequest", CallOptions.DEFAULT);
        sentinel.send(californiaTarget(999));
        check("a listener kept during churn answers its snapshot", sentinel.until(FirestoreCheck::globalNoChange) != null, sentinel.end);
        int answered = 0;
        Status failure = null;
        for (int i = 0; i < 250 && failure == null; i++) {
            Bidi listen = new Bidi(this.listen, "ListenRequest", CallOptions.DEFAULT);
            listen.send(californiaTarget(1000 + i));
            if (listen.until(FirestoreCheck::globalNoChange) != null) answered++;
            else failure = listen.end;
            listen.requests.cancel("detached", null);
            listen.awaitEnd();
        }
        check("250 listeners attached and detached in turn all get their snapshot", answered == 250, answered + " answered; " + failure);
        commitWrites(city("BAK", "Bakersfield", "CA", 400000));
        List<JsonObject> change = sentinel.until(FirestoreCheck::globalNoChange);
        check("the listener kept during churn still receives changes", change != null && change.stream().anyMatch(r ->
                doc("cities/BAK").equals(path(r, "documentChange.document.name"))), change != null ? change : sentinel.end);
        sentinel.requests.cancel("done", null);
        sentinel.awaitEnd();
    }

    // grpc-java closes an idle connection (GOAWAY, then close) and opens a new one for the next call.
    void idleReconnect() throws InterruptedException {
        ManagedChannel idle = NettyChannelBuilder.forTarget(target).usePlaintext().idleTimeout(1, TimeUnit.SECONDS).build();
        Channel saved = channel;
        channel = ClientInterceptors.intercept(idle, emulatorHeaders());
        try {
            check("a call on a fresh channel answers", "Los Angeles".equals(path(get("cities/LA"), "fields.name.stringValue")), "no LA");
            // It goes idle about a second after its last call; a loaded machine may be later.
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
            while (idle.getState(false) != io.grpc.ConnectivityState.IDLE && System.nanoTime() < until) Thread.sleep(100);
            check("the channel went idle", idle.getState(false) == io.grpc.ConnectivityState.IDLE, idle.getState(false));
            check("a call after the idle channel reconnects answers", "Los Angeles".equals(path(get("cities/LA"), "fields.name.stringValue")), "no LA");
        } finally {
            channel = saved;
            idle.shutdownNow();
        }
    }

    void deadlines() throws InterruptedException {
        // A Listen never ends on its own: its deadline (sent as grpc-timeout) must end it.
        Bidi listen = new Bidi(this.listen, "ListenRequest", CallOptions.DEFAULT.withDeadlineAfter(700, TimeUnit.MILLISECONDS));
        listen.send(californiaTarget(2));
        Status end = listen.awaitEnd();
        check("a Listen past its deadline ends DEADLINE_EXCEEDED", end.getCode() == Status.Code.DEADLINE_EXCEEDED, end);
        Status unary = statusOf(() -> ClientCalls.blockingUnaryCall(channel, getDocument,
                CallOptions.DEFAULT.withDeadlineAfter(1, TimeUnit.NANOSECONDS), msg("GetDocumentRequest", "{\"name\": \"" + doc("cities/LA") + "\"}")));
        check("a call with an expired deadline ends DEADLINE_EXCEEDED", unary.getCode() == Status.Code.DEADLINE_EXCEEDED, unary);
        check("the channel still serves after deadlines", "Los Angeles".equals(path(get("cities/LA"), "fields.name.stringValue")), "no LA");
    }

    void cancelledListen() throws InterruptedException {
        Bidi listen = new Bidi(this.listen, "ListenRequest", CallOptions.DEFAULT);
        listen.send(californiaTarget(3));
        List<JsonObject> initial = listen.until(FirestoreCheck::globalNoChange);
        check("a second Listen answers its snapshot", initial != null, listen.end);
        listen.requests.cancel("the check cancels it", null);
        Status end = listen.awaitEnd();
        check("a cancelled Listen ends CANCELLED", end.getCode() == Status.Code.CANCELLED, end);
        // The server must drop the cancelled stream: later commits and calls work as before.
        commitWrites(city("OAK", "Oakland", "CA", 430000));
        check("the channel still serves after a cancel", "Oakland".equals(path(get("cities/OAK"), "fields.name.stringValue")), "no OAK");
    }

    void badRequests() {
        Status badName = statusOf(() -> unary(getDocument, "GetDocumentRequest", "{\"name\": \"projects/demo-java/nowhere\"}"));
        check("GetDocument of a malformed name is INVALID_ARGUMENT", badName.getCode() == Status.Code.INVALID_ARGUMENT, badName);
        check("the INVALID_ARGUMENT names what is wrong", badName.getDescription() != null && badName.getDescription().contains("nowhere"), badName);

        // The message echoes a 20 KB name: its trailers must stay within the 8 KiB grpc-java
        // accepts (past 10 KiB it drops the connection, failing every call on the channel).
        String longName = DOCS + "/" + "a/".repeat(10_000) + "b";
        Status longBad = statusOf(() -> unary(getDocument, "GetDocumentRequest", "{\"name\": \"" + longName + "\"}"));
        check("GetDocument of a malformed 20 KB name is INVALID_ARGUMENT naming it", longBad.getCode() == Status.Code.INVALID_ARGUMENT
                && longBad.getDescription() != null && longBad.getDescription().contains(DOCS + "/a/a/"),
                longBad.getCode() + " " + clip(String.valueOf(longBad.getDescription())));
        check("the channel still serves after a long error", "Los Angeles".equals(path(get("cities/LA"), "fields.name.stringValue")), "no LA");

        Status badLimit = statusOf(() -> streaming(runQuery, "RunQueryRequest", """
            {"parent": "%s", "structuredQuery": {"from": [{"collectionId": "cities"}], "limit": -1}}""".formatted(DOCS)));
        check("RunQuery with a negative limit is INVALID_ARGUMENT", badLimit.getCode() == Status.Code.INVALID_ARGUMENT
                && badLimit.getDescription() != null && badLimit.getDescription().toLowerCase().contains("limit"), badLimit);
    }

    // ---- injected faults (docs/faults.md) -----------------------------------------------------
    // Faults are set through /emulator/v1/projects/demo-java/faults. grpc-java retries on its
    // own when a channel has a retry policy in its service config (RetriableStream: a call is
    // replayed, on a new connection if need be, until a response message commits it); the
    // policy below gives each method the retry codes of the official clients' Firestore
    // service config (as google-cloud-firestore's generated transports carry it): reads retry
    // UNAVAILABLE, INTERNAL, DEADLINE_EXCEEDED; Commit retries UNAVAILABLE and
    // RESOURCE_EXHAUSTED. The transaction re-run and the Listen resume are this program's, done
    // as the SDKs do them (a new transaction naming the aborted one as retryTransaction; a new
    // stream with the last resume token).

    final java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();

    JsonObject faultCall(String method, String suffix, String body) throws Exception {
        java.net.http.HttpRequest.Builder request = java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://" + target + "/emulator/v1/projects/" + PROJECT + "/faults" + suffix))
                .header("Content-Type", "application/json")
                .method(method, body == null ? java.net.http.HttpRequest.BodyPublishers.noBody() : java.net.http.HttpRequest.BodyPublishers.ofString(body));
        java.net.http.HttpResponse<String> response = http.send(request.build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) throw new IllegalStateException(method + " faults: HTTP " + response.statusCode() + " " + response.body());
        return JsonParser.parseString(response.body()).getAsJsonObject();
    }

    int inject(String rule) throws Exception {
        return faultCall("POST", "", rule).getAsJsonArray("faults").get(0).getAsJsonObject().get("id").getAsInt();
    }

    /** How many requests the fault hit; -1 once a `times` rule is used up and gone. */
    int fired(int id) throws Exception {
        for (JsonElement fault : faultCall("GET", "", null).getAsJsonArray("faults")) {
            if (fault.getAsJsonObject().get("id").getAsInt() == id) return fault.getAsJsonObject().get("fired").getAsInt();
        }
        return -1;
    }

    static Map<String, Object> retryServiceConfig() {
        List<Object> reads = new ArrayList<>();
        for (String name : List.of("GetDocument", "BatchGetDocuments", "RunQuery", "ListDocuments", "BeginTransaction", "Rollback")) {
            reads.add(Map.of("service", SERVICE, "method", name));
        }
        Map<String, Object> readPolicy = Map.of("maxAttempts", 5.0, "initialBackoff", "0.1s", "maxBackoff", "1s",
                "backoffMultiplier", 1.3, "retryableStatusCodes", List.of("UNAVAILABLE", "INTERNAL", "DEADLINE_EXCEEDED"));
        Map<String, Object> commitPolicy = Map.of("maxAttempts", 5.0, "initialBackoff", "0.1s", "maxBackoff", "1s",
                "backoffMultiplier", 1.3, "retryableStatusCodes", List.of("UNAVAILABLE", "RESOURCE_EXHAUSTED"));
        return Map.of("methodConfig", List.of(
                Map.of("name", reads, "retryPolicy", readPolicy),
                Map.of("name", List.of(Map.of("service", SERVICE, "method", "Commit")), "retryPolicy", commitPolicy)));
    }

    void faults() throws Exception {
        ManagedChannel retrying = NettyChannelBuilder.forTarget(target).usePlaintext()
                .defaultServiceConfig(retryServiceConfig()).enableRetry().build();
        Channel saved = channel;
        channel = ClientInterceptors.intercept(retrying, emulatorHeaders());
        String run = "faults" + System.nanoTime();
        try {
            commitWrites("""
                {"update": {"name": "%s", "fields": {"n": {"integerValue": "0"}, "tag": {"stringValue": "x"}}}}""".formatted(doc(run + "/a")));

            // Reads retried through UNAVAILABLE: unary, and a server stream (no message had come).
            int id = inject("{\"method\": \"GetDocument\", \"error\": \"UNAVAILABLE\", \"times\": 2}");
            Status read = statusOf(() -> get(run + "/a"));
            check("faults: GetDocument retried through 2 x UNAVAILABLE", read.isOk(), read);
            check("faults: ... its fault used up (3 attempts)", fired(id) == -1, fired(id));
            id = inject("{\"method\": \"BatchGetDocuments\", \"error\": \"UNAVAILABLE\", \"times\": 2}");
            List<JsonObject> batch = new ArrayList<>();
            Status batchStatus = statusOf(() -> batch.addAll(streaming(batchGet, "BatchGetDocumentsRequest", """
                {"database": "%s", "documents": ["%s"]}""".formatted(DATABASE, doc(run + "/a")))));
            check("faults: BatchGetDocuments retried through 2 x UNAVAILABLE", batchStatus.isOk() && batch.size() == 1
                    && "x".equals(path(batch.get(0), "found.fields.tag.stringValue")), batchStatus + " " + batch);
            check("faults: ... its fault used up", fired(id) == -1, fired(id));

            // A reset closes the connection under the call: UNAVAILABLE, retried on a new one.
            id = inject("{\"method\": \"GetDocument\", \"reset\": true, \"once\": true}");
            read = statusOf(() -> get(run + "/a"));
            check("faults: GetDocument retried after a connection reset", read.isOk(), read);
            check("faults: ... the reset fired", fired(id) == -1, fired(id));

            // A RunQuery answer cut (dropAfter): grpc-java replays a stream only until its first
            // message commits it. Cut before any message, the query is retried and whole; cut
            // after one, the UNAVAILABLE reaches the caller, which has the first document.
            String everyDoc = """
                {"parent": "%s", "structuredQuery": {"from": [{"collectionId": "%s"}]}}""".formatted(DOCS, run);
            id = inject("{\"method\": \"RunQuery\", \"dropAfter\": 0, \"once\": true}");
            List<JsonObject> rows = new ArrayList<>();
            Status cut = statusOf(() -> rows.addAll(streaming(runQuery, "RunQueryRequest", everyDoc)));
            check("faults: RunQuery cut before its first message is retried whole", cut.isOk() && rows.size() == 1
                    && path(rows.get(0), "document.name") != null, cut + " " + rows);
            check("faults: ... the cut fired", fired(id) == -1, fired(id));
            commitWrites("{\"update\": {\"name\": \"" + doc(run + "/b") + "\", \"fields\": {}}}");
            id = inject("{\"method\": \"RunQuery\", \"dropAfter\": 1, \"once\": true}");
            List<JsonObject> partial = new ArrayList<>();
            Iterator<DynamicMessage> answers = ClientCalls.blockingServerStreamingCall(channel, runQuery,
                    CallOptions.DEFAULT.withDeadlineAfter(WAIT_SECONDS, TimeUnit.SECONDS), msg("RunQueryRequest", everyDoc));
            Status midway = statusOf(() -> { while (answers.hasNext()) partial.add(json(answers.next())); });
            check("faults: RunQuery cut after one message: the first document, then UNAVAILABLE (committed: not retried)",
                    midway.getCode() == Status.Code.UNAVAILABLE && partial.size() == 1, midway + " after " + partial.size());
            check("faults: ... the cut fired once", fired(id) == -1, fired(id));

            // A status outside the retry codes is reported after one attempt.
            id = inject("{\"method\": \"GetDocument\", \"error\": \"ABORTED\", \"message\": \"injected\", \"always\": true}");
            read = statusOf(() -> get(run + "/a"));
            check("faults: GetDocument with ABORTED is reported", read.getCode() == Status.Code.ABORTED && "injected".equals(read.getDescription()), read);
            check("faults: ... after one attempt", fired(id) == 1, fired(id));
            faultCall("DELETE", "", null);

            // A transaction re-run after ABORTED commits once.
            String counter = doc(run + "/counter");
            commitWrites("{\"update\": {\"name\": \"" + counter + "\", \"fields\": {\"n\": {\"integerValue\": \"0\"}}}}");
            id = inject("{\"method\": \"Commit\", \"error\": \"ABORTED\", \"once\": true}");
            int attempts = 0;
            String previous = null;
            Status outcome = Status.UNKNOWN;
            while (attempts < 5) {
                attempts++;
                String options = previous == null ? "{\"readWrite\": {}}" : "{\"readWrite\": {\"retryTransaction\": \"" + previous + "\"}}";
                String tx = path(unary(beginTransaction, "BeginTransactionRequest",
                        "{\"database\": \"" + DATABASE + "\", \"options\": " + options + "}"), "transaction");
                JsonObject current = unary(getDocument, "GetDocumentRequest", "{\"name\": \"" + counter + "\", \"transaction\": \"" + tx + "\"}");
                long n = Long.parseLong(path(current, "fields.n.integerValue"));
                outcome = statusOf(() -> unary(commit, "CommitRequest", """
                    {"database": "%s", "transaction": "%s", "writes": [{"update": {"name": "%s", "fields": {"n": {"integerValue": "%d"}}}}]}"""
                        .formatted(DATABASE, tx, counter, n + 1)));
                if (outcome.getCode() != Status.Code.ABORTED) break;
                previous = tx;
            }
            check("faults: a transaction whose commit is ABORTED once commits on its second run", outcome.isOk() && attempts == 2, outcome + " after " + attempts);
            check("faults: ... the counter went up exactly once", "1".equals(path(get(run + "/counter"), "fields.n.integerValue")), get(run + "/counter"));
            check("faults: ... the ABORTED fault is used up", fired(id) == -1, fired(id));

            // A commit whose answer is dropped: the server committed, the connection closed;
            // grpc-java sees UNAVAILABLE, which the Commit policy retries: an increment lands twice.
            String counted = doc(run + "/counted");
            commitWrites("{\"update\": {\"name\": \"" + counted + "\", \"fields\": {\"n\": {\"integerValue\": \"0\"}}}}");
            String increment = """
                {"update": {"name": "%s", "fields": {}}, "updateMask": {"fieldPaths": []},
                 "updateTransforms": [{"fieldPath": "n", "increment": {"integerValue": "1"}}]}""".formatted(counted);
            id = inject("{\"method\": \"Commit\", \"dropAnswer\": true, \"once\": true}");
            Status dropped = statusOf(() -> commitWrites(increment));
            check("faults: an increment whose answer was dropped succeeds through the Commit retry", dropped.isOk(), dropped);
            check("faults: ... committed by the first attempt and again by the retry (n = 2)",
                    "2".equals(path(get(run + "/counted"), "fields.n.integerValue")), get(run + "/counted"));
            check("faults: ... the drop fired", fired(id) == -1, fired(id));
            // Without a retry (the plain channel) the lost answer is UNAVAILABLE and the write is in, once.
            id = inject("{\"method\": \"Commit\", \"dropAnswer\": true, \"once\": true}");
            channel = saved;
            dropped = statusOf(() -> commitWrites(increment));
            channel = ClientInterceptors.intercept(retrying, emulatorHeaders());
            check("faults: without a retry policy the dropped answer is UNAVAILABLE", dropped.getCode() == Status.Code.UNAVAILABLE, dropped);
            check("faults: ... and the increment is in once (n = 3)", "3".equals(path(get(run + "/counted"), "fields.n.integerValue")), get(run + "/counted"));

            // A commit refused by injection did not happen (every retry refused too).
            id = inject("{\"method\": \"Commit\", \"error\": \"RESOURCE_EXHAUSTED\", \"always\": true}");
            Status refused = statusOf(() -> commitWrites("{\"update\": {\"name\": \"" + doc(run + "/refused") + "\", \"fields\": {}}}"));
            check("faults: a commit always refused with RESOURCE_EXHAUSTED fails after the policy's 5 attempts",
                    refused.getCode() == Status.Code.RESOURCE_EXHAUSTED && fired(id) == 5, refused + ", fired " + fired(id));
            faultCall("DELETE", "", null);
            check("faults: ... and the refused write is not there",
                    statusOf(() -> get(run + "/refused")).getCode() == Status.Code.NOT_FOUND, "it exists");

            // A Listen stream dropped after its first snapshot; a write made while it is down
            // arrives on the stream resumed from the last resume token, once.
            String target = """
                {"database": "%s", "addTarget": {"targetId": 1, %%s "query": {"parent": "%s",
                 "structuredQuery": {"from": [{"collectionId": "%s"}]}}}}""".formatted(DATABASE, DOCS, run);
            Bidi first = new Bidi(this.listen, "ListenRequest", CallOptions.DEFAULT);
            first.send(target.formatted(""));
            List<JsonObject> initial = first.until(FirestoreCheck::globalNoChange);
            check("faults: the Listen's first snapshot", initial != null, first.end);
            String token = null;
            for (JsonObject r : initial == null ? List.<JsonObject>of() : initial) {
                String t = path(r, "targetChange.resumeToken");
                if (t != null) token = t;
            }
            // The drop is armed by a request on the stream: a second target, then nothing more goes out.
            id = inject("{\"method\": \"Listen\", \"dropAfter\": 0, \"once\": true}");
            first.send("""
                {"database": "%s", "addTarget": {"targetId": 2, "documents": {"documents": ["%s"]}}}""".formatted(DATABASE, doc(run + "/a")));
            Status ended = first.awaitEnd();
            check("faults: the dropped Listen ends UNAVAILABLE", ended.getCode() == Status.Code.UNAVAILABLE
                    && String.valueOf(ended.getDescription()).contains("injected"), ended);
            commitWrites("{\"update\": {\"name\": \"" + doc(run + "/late") + "\", \"fields\": {\"tag\": {\"stringValue\": \"x\"}}}}");
            Bidi resumed = new Bidi(this.listen, "ListenRequest", CallOptions.DEFAULT);
            resumed.send(target.formatted(token == null ? "" : "\"resumeToken\": \"" + token + "\","));
            List<JsonObject> after = resumed.until(FirestoreCheck::globalNoChange);
            List<String> changed = after == null ? List.of() : after.stream().filter(r -> r.has("documentChange"))
                    .map(r -> path(r, "documentChange.document.name")).toList();
            check("faults: the resumed Listen (resume token) sends the write made while it was down, once",
                    token != null && changed.equals(List.of(doc(run + "/late"))), "token " + token + ", changes " + changed);
            resumed.requests.cancel("done", null);
            check("faults: ... the drop fired", fired(id) == -1, fired(id));
        } finally {
            faultCall("DELETE", "", null);
            channel = saved;
            retrying.shutdownNow();
            retrying.awaitTermination(5, TimeUnit.SECONDS);
        }
    }
}
