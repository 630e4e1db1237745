package tracegen_test

import (
	"strings"
	"testing"

	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/apitrace"
	"github.com/kubesim/kubesim/trace/etcdtrace"
	"github.com/kubesim/kubesim/trace/spoketrace"
)

// samples are events of the three generated packages, with their text: every
// option of the tag grammar, optional fields both present and absent.
var samples = []struct {
	data sim.Data
	text string
}{
	{&etcdtrace.RaftState{Member: "m1", Incarnation: 2, Term: 7, Role: "leader", Lead: 1, Commit: 42, LogHash: 0xbeef},
		"member=m1 inc=2 term=7 role=leader lead=1 commit=42 loghash=beef "},
	{&etcdtrace.Apply{Member: "m1", Index: 9, Term: 7, EntryHash: 0xabc, Rev: 12, Compact: 3, Changes: []etcdtrace.Change{
		{Type: etcdtrace.ChangePut, Key: "k\n", Value: strings.Repeat("v", etcdtrace.MaxTextValue+1), ModRev: 12, CreateRev: 10, Version: 3},
		{Type: etcdtrace.ChangeDelete, Key: "d", ModRev: 12}}},
		`member=m1 index=9 term=7 entry=abc rev=12 compact=3 put "k\n"="` + strings.Repeat("v", etcdtrace.MaxTextValue) +
			`"...(65 bytes fnv=39396e78d7fd4909)@12/10/3 delete "d"@12/0/0`},
	{&etcdtrace.KVHash{Member: "m2", Applied: 5, Rev: 4, CompactRev: 2, Hash: 255}, "member=m2 applied=5 rev=4 compact=2 hash=ff "},
	{&etcdtrace.Call{Client: "c", Op: 1, Kind: etcdtrace.OpCAS, Key: "k", Value: "v", Expect: "x"}, "client=c op=1 kind=cas key=k value=v expect=x"},
	{&etcdtrace.Call{Client: "c", Op: 2, Kind: etcdtrace.OpCAS, Key: "k", ExpectAbsent: true}, "client=c op=2 kind=cas key=k expect=absent"},
	{&etcdtrace.Call{Client: "c", Op: 3, Kind: etcdtrace.OpGet, Key: "k", Expect: "x", ExpectAbsent: true}, "client=c op=3 kind=get key=k"},
	{&etcdtrace.Return{Client: "c", Op: 1, Outcome: etcdtrace.OutcomeOK, Found: true, Value: "", Version: 2, Succeeded: true, Rev: 9, Member: "m1"},
		"client=c op=1 outcome=ok value= version=2 succeeded rev=9 member=m1"},
	{&etcdtrace.Return{Client: "c", Op: 2, Outcome: etcdtrace.OutcomeUnknown, Value: "v", Version: 2, Err: "timeout"},
		"client=c op=2 outcome=unknown err=timeout"},
	{&etcdtrace.WatchOpen{Watcher: "w", Stream: 1, Member: "m1", Key: "a", StartRev: 3}, "watcher=w stream=1 member=m1 key=a end= start=3 "},
	{&etcdtrace.WatchResp{Watcher: "w", Stream: 1, Member: "m1", Rev: 8, Progress: true, Canceled: true, CompactRev: 4},
		"watcher=w stream=1 member=m1 rev=8 progress canceled-compact=4"},
	{&apitrace.Call{Client: "c", Op: 1, User: "u", Verb: "update", Resource: "pods", Key: "ns/p", RV: "5", Value: "{}", Precondition: "4"},
		"client=c op=1 user=u verb=update resource=pods key=ns/p rv=5 value={} if-rv=4"},
	{&apitrace.Return{Client: "c", Op: 1, Code: 409, Reason: "Conflict", Value: "{}", Server: "api-1"},
		"client=c op=1 code=409 reason=Conflict server=api-1"},
	{&apitrace.Admit{Server: "api-1", User: "u", Verb: "create", Resource: "pods", Key: "ns/p", NodeName: "n1", Subresrc: "binding"},
		"server=api-1 user=u verb=create resource=pods key=ns/p node=n1 sub=binding"},
	{&apitrace.InformerEvent{Informer: "i", Resource: "pods", Type: "add", Key: "ns/p", RV: "3"}, "informer=i resource=pods type=add key=ns/p rv=3"},
	{&apitrace.Relist{Informer: "i", Resource: "pods", Reason: "expired", RV: "3", Items: 2}, "informer=i resource=pods reason=expired rv=3 items=2"},
	{&apitrace.Store{Informer: "i", Resource: "pods", RV: "3", Items: []apitrace.Item{{Key: "ns/a", RV: "2"}, {Key: "ns/b", RV: "3"}}},
		"informer=i resource=pods rv=3 ns/a@2 ns/b@3"},
	{&apitrace.ServerState{Resource: "leases", RV: "7"}, "resource=leases rv=7"},
	{&spoketrace.ContainerStart{Node: "n1", Pod: "ns/p", UID: "u1", Owner: "rs", Container: "c", Restarts: 1},
		"node=n1 pod=ns/p uid=u1 owner=rs container=c restarts=1"},
	{&spoketrace.ContainerStop{Node: "n1", Pod: "ns/p", UID: "u1", Container: "c", Reason: "killed", ExitCode: -1},
		"node=n1 pod=ns/p uid=u1 container=c reason=killed exit=-1 healthy=false"},
	{&spoketrace.PodReady{Node: "n1", Pod: "ns/p", UID: "u1", Ready: true}, "node=n1 pod=ns/p uid=u1 ready=true"},
	{&spoketrace.NodeHeartbeat{Node: "n1"}, "node=n1"},
	{&spoketrace.NodeTaint{Node: "n1", Taint: "t:NoExecute", Added: true}, "node=n1 taint=t:NoExecute added=true"},
	{&spoketrace.Bound{Scheduler: "s", Pod: "ns/p", UID: "u1", Node: "n1"}, "scheduler=s pod=ns/p uid=u1 node=n1"},
	{&spoketrace.Leading{Component: "scheduler", Identity: "s1", Leading: true}, "component=scheduler identity=s1 leading=true"},
	{&spoketrace.ClusterState{RV: "9",
		Pods:        []spoketrace.PodState{{Key: "ns/a", Node: "n1", Phase: "Running", Ready: true}, {Key: "ns/b", Phase: "Pending", Deleting: true}},
		Nodes:       []spoketrace.NodeState{{Name: "n1", Ready: "True", Taints: []string{"a:NoSchedule", "b:NoExecute"}}, {Name: "n2", Ready: "Unknown"}},
		ReplicaSets: []spoketrace.ReplicaSetState{{Key: "ns/rs", Replicas: 2}}, Deployments: []spoketrace.DeploymentState{{Key: "ns/d", Replicas: 3}}},
		"rv=9 pod:ns/a@n1/Running/ready pod:ns/b@/Pending/deleting node:n1/True/a:NoSchedule,b:NoExecute node:n2/Unknown rs:ns/rs=2 deploy:ns/d=3"},
}

// TestGeneratedText checks the text of the samples: what the generated
// AppendText methods print, which the trace hash covers.
func TestGeneratedText(t *testing.T) {
	for _, s := range samples {
		if got := string(s.data.AppendText([]byte("> "))); got != "> "+s.text {
			t.Errorf("%s: got\n%q\nwant\n%q", s.data.TraceKind(), got, "> "+s.text)
		}
	}
}

// BenchmarkAppendText appends the text of every sample once per op, into a
// reused buffer as the trace does: it must not allocate.
func BenchmarkAppendText(b *testing.B) {
	buf := make([]byte, 0, 1024)
	b.ReportAllocs()
	for b.Loop() {
		for _, s := range samples {
			buf = s.data.AppendText(buf[:0])
		}
	}
}
