// The official Go client (cloud.google.com/go/firestore and its generated apiv1 layer, over
// grpc-go) against faults injected through Hearth's endpoint (docs/faults.md), run by
// Tests/Compat/go-client.sh after the client's own integration tests. Each case sets a
// fault, runs the client, reads back how many requests the fault hit (`fired`: the client's
// attempts) and checks the data. Prints one line a case; exits 1 on any mismatch.
//
// Built in GOPATH mode against Debian's packages: go run faults.go (FIRESTORE_EMULATOR_HOST set).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"time"

	"cloud.google.com/go/firestore"
	vkit "cloud.google.com/go/firestore/apiv1"
	"google.golang.org/api/option"
	pb "google.golang.org/genproto/googleapis/firestore/v1"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

const project = "demo-go-faults"

var (
	host     = os.Getenv("FIRESTORE_EMULATOR_HOST")
	faultURL = "http://" + host + "/emulator/v1/projects/" + project + "/faults"
	failures = 0
)

func check(label string, actual, expected interface{}) {
	a, _ := json.Marshal(actual)
	e, _ := json.Marshal(expected)
	if !bytes.Equal(a, e) {
		failures++
		fmt.Printf("FAIL %s: expected %s, got %s\n", label, e, a)
	} else {
		fmt.Printf("ok   %s\n", label)
	}
}

func must(err error, what string) {
	if err != nil {
		fmt.Printf("FAIL %s: %v\n", what, err)
		os.Exit(1)
	}
}

type fault struct {
	ID        int  `json:"id"`
	Fired     int  `json:"fired"`
	Remaining *int `json:"remaining"`
}

func call(method, url string, body interface{}) []fault {
	var data []byte
	if body != nil {
		data, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest(method, url, bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(err, method+" "+url)
	defer resp.Body.Close()
	var out struct{ Faults []fault }
	must(json.NewDecoder(resp.Body).Decode(&out), "decode faults")
	if resp.StatusCode != 200 {
		fmt.Printf("FAIL %s %s: HTTP %d\n", method, url, resp.StatusCode)
		os.Exit(1)
	}
	return out.Faults
}

func inject(rule map[string]interface{}) int { return call("POST", faultURL, rule)[0].ID }

// fired is how many requests the fault hit; -1 once a `times` rule is used up and gone.
func fired(id int) int {
	for _, f := range call("GET", faultURL, nil) {
		if f.ID == id {
			return f.Fired
		}
	}
	return -1
}

func clear() { call("DELETE", faultURL, nil) }

func main() {
	ctx := context.Background()
	client, err := firestore.NewClient(ctx, project)
	must(err, "NewClient")
	// A fresh collection each run: the checks count documents.
	coll := client.Collection(fmt.Sprintf("faults-%d", time.Now().UnixNano()))
	_, err = coll.Doc("a").Set(ctx, map[string]interface{}{"n": 0, "tag": "x"})
	must(err, "seed")

	// --- Reads ------------------------------------------------------------------------
	// DocumentRef.Get is a BatchGetDocuments stream. Its default retry (UNAVAILABLE,
	// INTERNAL, DEADLINE_EXCEEDED) wraps opening the stream only, and grpc-go opens a
	// server stream without waiting for the answer: the status comes from Recv, past the
	// retry, so the Go client's Get reports the first UNAVAILABLE.
	id := inject(map[string]interface{}{"method": "BatchGetDocuments", "error": "UNAVAILABLE", "message": "injected", "times": 2})
	_, err = coll.Doc("a").Get(ctx)
	check("DocumentRef.Get through UNAVAILABLE: reported, not retried", fmt.Sprint(err), "rpc error: code = Unavailable desc = injected")
	check("... one attempt (one of the fault's two firings left)", fired(id), 1)
	clear()

	// The unary calls are retried by the generated layer: GetDocument through two UNAVAILABLEs.
	conn, err := grpc.Dial(host, grpc.WithInsecure())
	must(err, "dial")
	raw, err := vkit.NewClient(ctx, option.WithGRPCConn(conn))
	must(err, "apiv1 client")
	name := "projects/" + project + "/databases/(default)/documents/" + coll.ID + "/a"
	id = inject(map[string]interface{}{"method": "GetDocument", "error": "UNAVAILABLE", "times": 2})
	doc, err := raw.GetDocument(ctx, &pb.GetDocumentRequest{Name: name})
	if err != nil {
		check("GetDocument retried through 2 x UNAVAILABLE", err.Error(), "a document")
	} else {
		check("GetDocument retried through 2 x UNAVAILABLE", doc.Fields["tag"].GetStringValue(), "x")
	}
	check("... its fault is used up (3 attempts)", fired(id), -1)

	// A connection reset under GetDocument is UNAVAILABLE too: retried on a new connection.
	id = inject(map[string]interface{}{"method": "GetDocument", "reset": true, "once": true})
	doc, err = raw.GetDocument(ctx, &pb.GetDocumentRequest{Name: name})
	check("GetDocument retried after a connection reset", err == nil && doc.Fields["tag"].GetStringValue() == "x", true)
	check("... the reset fired", fired(id), -1)

	// ListDocuments (CollectionRef.DocumentRefs) is unary and retried the same way.
	id = inject(map[string]interface{}{"method": "ListDocuments", "error": "UNAVAILABLE", "once": true})
	refs, err := coll.DocumentRefs(ctx).GetAll()
	check("DocumentRefs retried through UNAVAILABLE", err == nil && len(refs) == 1, true)
	check("... its fault is used up", fired(id), -1)

	// A status outside the retry codes is reported at once.
	id = inject(map[string]interface{}{"method": "GetDocument", "error": "RESOURCE_EXHAUSTED", "always": true})
	_, err = raw.GetDocument(ctx, &pb.GetDocumentRequest{Name: name})
	check("GetDocument with RESOURCE_EXHAUSTED: reported", status.Code(err).String(), codes.ResourceExhausted.String())
	check("... after one attempt", fired(id), 1)
	clear()

	// --- A transaction re-run after ABORTED commits once -------------------------------------
	counter := coll.Doc("counter")
	_, err = counter.Set(ctx, map[string]interface{}{"n": 0})
	must(err, "counter")
	id = inject(map[string]interface{}{"method": "Commit", "error": "ABORTED", "once": true})
	attempts := 0
	err = client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		attempts++
		snap, err := tx.Get(counter)
		if err != nil {
			return err
		}
		n, _ := snap.DataAt("n")
		return tx.Set(counter, map[string]interface{}{"n": n.(int64) + 1})
	})
	check("RunTransaction through ABORTED succeeds", fmt.Sprint(err), "<nil>")
	check("... the function ran twice (ABORTED, then committed)", attempts, 2)
	snap, err := counter.Get(ctx)
	must(err, "counter read")
	check("... the counter went up exactly once", snap.Data()["n"], 1)
	check("... the ABORTED fault is used up", fired(id), -1)

	// Every attempt ABORTED: the client gives up after MaxAttempts and nothing is written.
	id = inject(map[string]interface{}{"method": "Commit", "error": "ABORTED", "always": true})
	attempts = 0
	err = client.RunTransaction(ctx, func(ctx context.Context, tx *firestore.Transaction) error {
		attempts++
		return tx.Set(counter, map[string]interface{}{"n": 100})
	}, firestore.MaxAttempts(3)) // the default 5 back off for up to 15 s
	check("RunTransaction always ABORTED: reported", status.Code(err).String(), codes.Aborted.String())
	check("... after MaxAttempts(3) runs, each committed and aborted", []int{attempts, fired(id)}, []int{3, 3})
	clear()
	snap, _ = counter.Get(ctx)
	check("... and nothing was written", snap.Data()["n"], 1)

	// --- A commit whose answer is dropped ----------------------------------------------------
	// The Go client gives Commit no retry: the lost answer is UNAVAILABLE to the caller, and
	// the write is in, once.
	counted := coll.Doc("counted")
	_, err = counted.Set(ctx, map[string]interface{}{"n": 0})
	must(err, "counted")
	id = inject(map[string]interface{}{"method": "Commit", "dropAnswer": true, "once": true})
	_, err = counted.Update(ctx, []firestore.Update{{Path: "n", Value: firestore.Increment(1)}})
	check("an increment whose answer was dropped: UNAVAILABLE, not retried", status.Code(err).String(), codes.Unavailable.String())
	check("... the fault fired once", fired(id), -1)
	snap, err = counted.Get(ctx)
	must(err, "counted read")
	check("... and the write is there exactly once (n = 1)", snap.Data()["n"], 1)

	// A write refused by injection did not happen.
	inject(map[string]interface{}{"method": "Commit", "error": "UNAVAILABLE", "always": true})
	_, err = coll.Doc("refused").Set(ctx, map[string]interface{}{"v": 1})
	check("a commit refused with UNAVAILABLE is reported", status.Code(err).String(), codes.Unavailable.String())
	clear()
	_, err = coll.Doc("refused").Get(ctx)
	check("... and the refused write is not there", status.Code(err).String(), codes.NotFound.String())

	// --- A query's answer stream cut after one document ---------------------------------------
	// RunQuery is a server stream too: the cut comes from Recv, past the retry, so the
	// iterator reports UNAVAILABLE after the first document.
	id = inject(map[string]interface{}{"method": "RunQuery", "dropAfter": 1, "once": true})
	it := coll.OrderBy(firestore.DocumentID, firestore.Asc).Documents(ctx)
	first, err := it.Next()
	check("a query whose answer is cut after one document: the first arrives", err == nil && first.Ref.ID == "a", true)
	_, err = it.Next()
	check("... then UNAVAILABLE, not retried", status.Code(err).String(), codes.Unavailable.String())
	it.Stop()
	check("... the cut fired", fired(id), -1)

	// --- A Listen stream dropped mid-way: the snapshot iterator survives -----------------------
	// The Go client's watch treats UNAVAILABLE as transient (watch.go, isPermanentWatchError):
	// it opens a new stream with a resume token and the iterator goes on.
	id = inject(map[string]interface{}{"method": "Listen", "dropAfter": 2, "once": true})
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	iter := coll.Where("tag", "==", "x").Snapshots(wctx)
	qs, err := iter.Next()
	must(err, "first snapshot")
	check("the first snapshot", ids(qs), []string{"a"})
	check("... the first Listen request met the fault", fired(id), -1)
	_, err = coll.Doc("late").Set(ctx, map[string]interface{}{"tag": "x"})
	must(err, "late write")
	var last []string
	for {
		qs, err = iter.Next()
		if err != nil {
			break
		}
		last = ids(qs)
		if len(last) == 2 {
			break
		}
	}
	check("the snapshot iterator survived the dropped stream (no error)", fmt.Sprint(err), "<nil>")
	check("... and saw the later write", last, []string{"a", "late"})
	check("... the drop fired", fired(id), -1)
	iter.Stop()
	cancel()
	clear()

	if failures > 0 {
		fmt.Printf("go-client faults: %d failure(s)\n", failures)
		os.Exit(1)
	}
	fmt.Println("go-client faults: all passed")
}

func ids(qs *firestore.QuerySnapshot) []string {
	docs, err := qs.Documents.GetAll()
	must(err, "snapshot documents")
	out := []string{}
	for _, d := range docs {
		out = append(out, d.Ref.ID)
	}
	sort.Strings(out)
	return out
}
