package apiserver

import (
	"errors"
	"strings"

	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/nodes/etcd/mvcc"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// readRV parses the resourceVersion of a get or list: quorum is true for
// "" (read etcd), otherwise rev is the revision the cache must have seen.
func readRV(rv string) (quorum bool, rev int64, st *apiwire.Status) {
	if rv == "" {
		return true, 0, nil
	}
	v, ok := parseRV(rv)
	if !ok {
		return false, 0, badRequest("invalid resourceVersion %q", rv)
	}
	return false, v, nil
}

// get serves get: "" is a quorum read from etcd; "0" and N are served from
// the cache (N once the cache has seen it), or from etcd while the cache is
// not ready.
func (s *Server) get(c *call) {
	quorum, rev, st := readRV(c.req.ResourceVersion)
	if st != nil {
		c.fail(st)
		return
	}
	key := storageKey(c.res, c.req.Namespace, c.req.Name)
	// "" reads etcd; so does any get while the cache is not ready
	// (k8s.io/apiserver, pkg/storage/cacher/delegator.go, Get:
	// ResilientWatchCacheInitialization, GA in 1.34).
	if quorum || !s.caches[c.res.Name].ready {
		s.etcd.Get(key, etcd.GetOptions{}, func(r etcd.GetResult, err error) {
			switch {
			case err != nil:
				c.fail(etcdStatus(err))
			case len(r.KVs) == 0:
				c.fail(notFound(c.res, c.req.Name))
			default:
				obj, err := s.decodeKV(r.KVs[0])
				if err != nil {
					c.fail(internalError(err))
					return
				}
				c.ok(obj)
			}
		})
		return
	}
	ch := s.caches[c.res.Name]
	ch.waitFresh(rev, func(st *apiwire.Status) {
		if st != nil {
			c.fail(st)
			return
		}
		obj, ok := ch.store[key]
		if !ok {
			c.fail(notFound(c.res, c.req.Name))
			return
		}
		c.ok(obj.DeepCopyObject())
	})
}

// listEtcd reads [start, end of prefix) from etcd at rev (0: a quorum read
// of the latest), filters by sel and pages by Limit; paging says whether
// rev comes from a continue token (it names the 410 that a compacted rev
// gets).
func (s *Server) listEtcd(c *call, prefix, start string, rev int64, sel model.Selector, paging bool) {
	limit := c.req.Limit
	if paging && s.cfg.Ablations.Has(ablation.ContinueAtLatest) {
		rev = 0 // the ablation: the page is read at the latest revision
	}
	opts := etcd.GetOptions{End: prefixEnd(prefix), Rev: rev}
	if sel.Empty() && limit > 0 {
		opts.Limit = limit
	}
	s.etcd.Get(start, opts, func(r etcd.GetResult, err error) {
		if err != nil {
			switch {
			case errors.Is(err, mvcc.ErrCompacted) && paging:
				c.fail(gone("The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results."))
				return
			case errors.Is(err, mvcc.ErrCompacted):
				c.fail(gone("The resourceVersion for the provided list is too old."))
				return
			}
			c.fail(etcdStatus(err))
			return
		}
		listRev := rev
		if listRev == 0 {
			listRev = r.Revision
		}
		resp := &apiwire.Response{Status: statusOK, ResourceVersion: formatRV(listRev)}
		last := ""
		for _, kv := range r.KVs {
			if limit > 0 && int64(len(resp.Items)) >= limit {
				break
			}
			last = string(kv.Key)
			obj, err := s.decodeKV(kv)
			if err != nil {
				c.fail(internalError(err))
				return
			}
			if sel.Matches(obj.GetObjectMeta().Labels) {
				resp.Items = append(resp.Items, obj)
			}
		}
		if r.More || (last != "" && last != string(r.KVs[len(r.KVs)-1].Key)) {
			resp.Continue = formatRV(listRev) + "|" + last + "\x00"
		}
		c.reply(resp)
	})
}

// parseContinue decodes a continue token "<rev>|<next key>"; the key must
// lie under prefix.
func parseContinue(token, prefix string) (int64, string, bool) {
	revStr, key, ok := strings.Cut(token, "|")
	if !ok || !hasPrefix(key, prefix) {
		return 0, "", false
	}
	rev, ok := parseRV(revStr)
	return rev, key, ok && rev > 0
}
