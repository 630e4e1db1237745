package clientgo

import (
	"context"
	"errors"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// run is what one side did under a scenario: its record (as
// scenario.want), the backoff waits and, on the real side, the fake
// clock's time at each backoff.
type run struct {
	log      []string
	backoffs []time.Duration
	at       []time.Time
}

// realErr is the error client-go's REST client returns for f.
func realErr(f failure) error {
	switch f {
	case gone:
		return apierrors.NewResourceExpired("too old resource version: 5 (10)")
	case tooLarge:
		// As k8s.io/apiserver pkg/storage/errors.go
		// NewTooLargeResourceVersionError builds it.
		err := apierrors.NewTimeoutError("Too large resource version: 20, current: 10", 1)
		err.ErrStatus.Details.Causes = []metav1.StatusCause{{Type: metav1.CauseTypeResourceVersionTooLarge, Message: "Too large resource version"}}
		return err
	case internal:
		return apierrors.NewInternalError(errors.New("scripted failure"))
	case tooMany:
		return apierrors.NewTooManyRequests("storage is (re)initializing", 1)
	case unavailable:
		return apierrors.NewServiceUnavailable("etcd is unavailable")
	case refused:
		return &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	panic("no error for failure none")
}

func realObj(rv string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p", ResourceVersion: rv}}
}

type realReq struct{ verb, rv string }

type realReply struct {
	list runtime.Object
	w    watch.Interface
	err  error
}

// runReal drives client-go's Reflector (NewReflectorWithOptions, run by
// RunWithContext) through sc. Its ListerWatcher hands every request to
// this goroutine and blocks until the script answers; its clock is a fake
// one that reports every backoff timer. The reflector does one thing at a
// time (a request or a backoff), so the record is deterministic. The wall
// clock only guards against a stuck reflector.
func runReal(t *testing.T, sc scenario) run {
	t.Helper()
	stop := make(chan struct{})
	armed := make(chan time.Duration)
	clk := newSpyClock(armed)
	clk.stop = stop
	reqs := make(chan realReq)
	replies := make(chan realReply)
	ask := func(q realReq) realReply {
		select {
		case reqs <- q:
		case <-stop:
			return realReply{err: errors.New("stopped")}
		}
		select {
		case r := <-replies:
			return r
		case <-stop:
			return realReply{err: errors.New("stopped")}
		}
	}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(_ context.Context, o metav1.ListOptions) (runtime.Object, error) {
			r := ask(realReq{"list", o.ResourceVersion})
			return r.list, r.err
		},
		WatchFuncWithContext: func(_ context.Context, o metav1.ListOptions) (watch.Interface, error) {
			r := ask(realReq{"watch", o.ResourceVersion})
			return r.w, r.err
		},
	}
	store := cache.NewStore(cache.MetaNamespaceKeyFunc)
	refl := cache.NewReflectorWithOptions(lw, nil, store, cache.ReflectorOptions{Name: "differential", Clock: clk})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		refl.RunWithContext(ctx)
	}()
	defer func() {
		close(stop)
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("client-go's reflector did not stop")
		}
	}()

	var out run
	next := 0
	for {
		select {
		case d := <-armed:
			out.log = append(out.log, "backoff")
			out.backoffs = append(out.backoffs, d)
			out.at = append(out.at, clk.Now())
			clk.Step(d)
		case q := <-reqs:
			out.log = append(out.log, q.verb+" "+q.rv)
			if next == len(sc.steps) {
				return out
			}
			st := sc.steps[next]
			next++
			if q.verb != st.verb {
				out.log = append(out.log, "(the script expected a "+st.verb+")")
				return out
			}
			switch {
			case st.fail != none:
				replies <- realReply{err: realErr(st.fail)}
			case st.verb == "list":
				replies <- realReply{list: &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: st.listRV}}}
			default:
				fw := watch.NewFake()
				replies <- realReply{w: fw}
				// FakeWatcher's channel is unbuffered: each send returns
				// once the reflector took the event.
				for _, e := range st.events {
					fw.Action(watch.EventType(e.typ), realObj(e.rv))
				}
				clk.Step(st.after)
				if st.end == none {
					fw.Stop()
				} else {
					status := realErr(st.end).(apierrors.APIStatus).Status()
					fw.Error(&status)
				}
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("client-go's reflector made no request and no backoff for 10 s; record so far: %q", out.log)
		}
	}
}
