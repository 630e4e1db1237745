// Package backup is etcd's disaster-recovery side: a backup store (an
// object store on a host of its own, reachable over the simulated network
// and subject to its faults like any host) and the operator's periodic job
// that runs `etcdctl snapshot save` against one member and uploads the
// snapshot there.
package backup

import (
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/sim"
	"github.com/kubesim/kubesim/trace/etcdtrace"
)

// StorePort is the port a backup store serves on.
const StorePort = "objstore"

// objectPrefix is the disk file prefix of stored objects.
const objectPrefix = "obj/"

// ErrNotFound answers a Get of a name the store does not hold.
var ErrNotFound = errors.New("backup: no such object")

// The store's request bodies.
type (
	putObject struct {
		Name string
		Snap *etcd.Snapshot
	}
	getObject  struct{ Name string }
	listObject struct{}
	// storeReply answers every request; Err is set on failure.
	storeReply struct {
		Err   error
		Snap  *etcd.Snapshot
		Names []string
	}
)

// BootStore returns the Boot function of a backup store host. Objects are
// written to the host's disk and acknowledged once fsynced, so a crash of
// the store loses no acknowledged object; every accepted object is traced
// as etcdtrace.BackupStored with its snapshot status.
func BootStore() func(h *sim.Host) {
	return func(h *sim.Host) {
		d := h.Disk()
		sim.Serve(h, StorePort, func(q *sim.Request) {
			switch b := q.Body.(type) {
			case *putObject:
				data, err := json.Marshal(b.Snap)
				if err != nil || b.Name == "" {
					q.Reply(&storeReply{Err: errors.New("backup: invalid object")})
					return
				}
				d.Set(objectPrefix+b.Name, data)
				d.Sync(func() {
					st := etcd.SnapshotStatus(b.Snap)
					h.Emit(&etcdtrace.BackupStored{Store: h.Name(), Name: b.Name, Member: b.Snap.Member,
						Rev: st.Revision, Keys: st.TotalKeys, Hash: st.Hash})
					q.Reply(&storeReply{})
				})
			case *getObject:
				recs := d.Records(objectPrefix + b.Name)
				if len(recs) != 1 {
					q.Reply(&storeReply{Err: ErrNotFound})
					return
				}
				s := new(etcd.Snapshot)
				if err := json.Unmarshal(recs[0], s); err != nil {
					q.Reply(&storeReply{Err: err})
					return
				}
				q.Reply(&storeReply{Snap: s})
			case *listObject:
				var names []string
				for _, f := range d.Files() {
					if n, ok := strings.CutPrefix(f, objectPrefix); ok {
						names = append(names, n)
					}
				}
				q.Reply(&storeReply{Names: names})
			default:
				q.Reply(&storeReply{Err: errors.New("backup: unknown request")})
			}
		})
	}
}

// StoreClient talks to a backup store from another host.
type StoreClient struct {
	rpc     *sim.RPC
	store   sim.HostID
	timeout time.Duration
}

// NewStoreClient makes a client of the store on host store, receiving its
// replies on port replyPort of h, with a timeout per request. Call it
// from h's Boot.
func NewStoreClient(h *sim.Host, store sim.HostID, replyPort string, timeout time.Duration) *StoreClient {
	return &StoreClient{rpc: sim.NewRPC(h, replyPort), store: store, timeout: timeout}
}

// call sends one request and hands its reply or error to done.
func (c *StoreClient) call(body any, done func(*storeReply, error)) {
	c.rpc.Call(c.store, StorePort, body, c.timeout, func(resp any, err error) {
		r, ok := resp.(*storeReply)
		switch {
		case err != nil:
			done(nil, err)
		case !ok:
			done(nil, errors.New("backup: bad reply"))
		case r.Err != nil:
			done(nil, r.Err)
		default:
			done(r, nil)
		}
	})
}

// Put uploads a snapshot under name; done gets nil once it is durable.
func (c *StoreClient) Put(name string, s *etcd.Snapshot, done func(error)) {
	c.call(&putObject{Name: name, Snap: s}, func(_ *storeReply, err error) { done(err) })
}

// Get downloads the snapshot stored under name.
func (c *StoreClient) Get(name string, done func(*etcd.Snapshot, error)) {
	c.call(&getObject{Name: name}, func(r *storeReply, err error) {
		if err != nil {
			done(nil, err)
			return
		}
		done(r.Snap, nil)
	})
}

// List returns the names of the stored objects, sorted.
func (c *StoreClient) List(done func([]string, error)) {
	c.call(&listObject{}, func(r *storeReply, err error) {
		if err != nil {
			done(nil, err)
			return
		}
		done(r.Names, nil)
	})
}
