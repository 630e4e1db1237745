package apiserver

import (
	"github.com/kubesim/kubesim/ablation"
	"github.com/kubesim/kubesim/model"
	"github.com/kubesim/kubesim/nodes/etcd"
	"github.com/kubesim/kubesim/trace/apiwire"
)

// list serves list as kube-apiserver 1.34's cache delegator does
// (k8s.io/apiserver, pkg/storage/cacher/delegator.go, GetList, and
// delegator/interface.go, ShouldDelegateList):
//
//   - a continue token, resourceVersionMatch Exact, and the legacy exact
//     match (a limit with a resourceVersion other than "" and "0") read
//     etcd at exactly that revision (410 Gone once it is compacted);
//   - while the cache is not ready, a list without a label selector and
//     with a limit reads etcd, and any other gets 429 TooManyRequests;
//   - resourceVersion "" is a consistent read from the cache
//     (ConsistentListFromCache, GA in 1.34): the server reads etcd's
//     current revision, waits until the cache has seen it, and serves the
//     cache's contents, or reads etcd when the cache has not caught up
//     within FreshnessTimeout;
//   - "0" and N (NotOlderThan) are served from the cache once it has seen
//     the revision.
//
// A list served from the cache honours Limit except at "0"
// (cacher.go, computeListLimit), with a continue token at the cache's
// revision.
func (s *Server) list(c *call) {
	req := c.req
	sel, err := model.ParseSelector(req.LabelSelector)
	if err != nil {
		c.fail(badRequest("unable to parse requirement: %v", err))
		return
	}
	if st := validateListOptions(req); st != nil {
		c.fail(st)
		return
	}
	prefix := listPrefix(c.res, req.Namespace)
	if req.Continue != "" {
		if req.ResourceVersion != "" && req.ResourceVersion != "0" {
			c.fail(badRequest("specifying resource version is not allowed when using continue"))
			return
		}
		rev, start, ok := parseContinue(req.Continue, prefix)
		if !ok {
			c.fail(badRequest("continue key is not valid"))
			return
		}
		s.listEtcd(c, prefix, start, rev, sel, true)
		return
	}
	quorum, rev, st := readRV(req.ResourceVersion)
	if st != nil {
		c.fail(st)
		return
	}
	if req.ResourceVersionMatch == apiwire.ResourceVersionMatchExact || (req.ResourceVersionMatch == "" && req.Limit > 0 && rev > 0) {
		s.listEtcd(c, prefix, prefix, rev, sel, false)
		return
	}
	ch := s.caches[c.res.Name]
	if !ch.ready {
		if sel.Empty() && req.Limit > 0 {
			s.listEtcd(c, prefix, prefix, 0, sel, false)
			return
		}
		c.fail(cacheNotReady())
		return
	}
	limit := req.Limit
	if req.ResourceVersion == "0" {
		limit = 0
	}
	serve := func(st *apiwire.Status) {
		if st != nil {
			c.fail(st)
			return
		}
		c.reply(ch.listPage(prefix, sel, limit))
	}
	if !quorum {
		ch.waitFresh(rev, serve)
		return
	}
	if s.cfg.Ablations.Has(ablation.ConsistentListFromStaleCache) {
		serve(nil) // the ablation: whatever the cache holds now
		return
	}
	s.currentRevision(prefix, func(cur int64, st *apiwire.Status) {
		if st != nil {
			c.fail(st)
			return
		}
		ch.waitFresh(cur, func(st *apiwire.Status) {
			if st != nil && st.Code == 504 {
				// The cache did not catch up in time: read etcd instead.
				s.listEtcd(c, prefix, prefix, 0, sel, false)
				return
			}
			serve(st)
		})
	})
}

// validateListOptions checks resourceVersionMatch as apimachinery's
// ValidateListOptions (pkg/apis/meta/internalversion/validation), with its
// messages; a failure is 422 Invalid.
func validateListOptions(req *apiwire.Request) *apiwire.Status {
	match := req.ResourceVersionMatch
	if match == "" {
		return nil
	}
	var msg string
	switch {
	case req.ResourceVersion == "":
		msg = "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided"
	case req.Continue != "":
		msg = "resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided"
	case match != apiwire.ResourceVersionMatchExact && match != apiwire.ResourceVersionMatchNotOlderThan:
		msg = `resourceVersionMatch: Unsupported value: "` + match + `": supported values: "Exact", "NotOlderThan", ""`
	case match == apiwire.ResourceVersionMatchExact && req.ResourceVersion == "0":
		msg = `resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"`
	default:
		return nil
	}
	return errStatus(422, apiwire.ReasonInvalid, "ListOptions.meta.k8s.io %q is invalid: %s", "", msg)
}

// cacheNotReady is the 429 of a cache that is (re)initializing
// (cacher.go, GetList and Watch: errors.NewTooManyRequests), with a
// Retry-After of one second (calculateRetryAfterForUnreadyCache), which
// client-go obeys by sending the request again (nodes/client, Do).
func cacheNotReady() *apiwire.Status {
	st := errStatus(429, apiwire.ReasonTooManyRequests, "storage is (re)initializing")
	st.RetryAfterSeconds = 1
	return st
}

// currentRevision reads etcd's current revision with a quorum read of one
// key, as the real store's GetCurrentResourceVersion lists the resource's
// prefix with a limit of 1 and keeps only the header's revision.
func (s *Server) currentRevision(prefix string, fn func(int64, *apiwire.Status)) {
	s.etcd.Get(prefix, etcd.GetOptions{}, func(r etcd.GetResult, err error) {
		if err != nil {
			fn(0, etcdStatus(err))
			return
		}
		fn(r.Revision, nil)
	})
}

// listPage lists the cache's objects under prefix that match sel, in key
// order, at most limit of them (0: all), with a continue token when the
// limit cut the list short (cacher.go, GetList: hasMoreListItems counts
// every object under the prefix, matching or not).
func (c *cache) listPage(prefix string, sel model.Selector, limit int64) *apiwire.Response {
	resp := &apiwire.Response{Status: statusOK, ResourceVersion: formatRV(c.rev)}
	keys := c.keysUnder(prefix)
	for i, k := range keys {
		obj := c.store[k]
		if sel.Matches(obj.GetObjectMeta().Labels) {
			resp.Items = append(resp.Items, obj.DeepCopyObject())
		}
		if limit > 0 && int64(len(resp.Items)) >= limit {
			if i < len(keys)-1 {
				resp.Continue = formatRV(c.rev) + "|" + k + "\x00"
			}
			break
		}
	}
	return resp
}
