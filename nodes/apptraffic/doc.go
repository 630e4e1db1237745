// Package apptraffic is the users of an application in kubesim: simulated
// clients that send requests to a Service at a steady rate and trace what
// each request met (apptrace.Request), so that checks and metrics judge
// the data plane from the trace alone.
//
// # A request
//
// A client runs on a host (Boot for a host of clients outside the
// cluster, Beside for clients on a node). At
// each arrival of a Poisson stream of Config.Rate requests per second
// (drawn from the world's seeded stream named after the client) it asks
// its entry node's rules (Config.Entry; its kube-proxy by default) for the
// Service port's route, finding the cluster IP by the Service's name as a
// DNS lookup would, and keeping it while the rules still match it:
//
//   - no rules for the Service port: refused (ReasonNoService);
//   - rules without backends: refused at once (ReasonNoEndpoints), as the
//     REJECT rule of a Service without endpoints;
//   - else a backend picked uniformly at random, as the statistic-mode
//     random rules of iptables pick, and the request sent over the
//     simulated network to kubelet.AppPort: of the pod's node for a client
//     in the cluster (its host is the entry node), of the entry node for a
//     client outside it, which forwards it to the pod's node.
//
// The pod's node answers as the package kubelet documents (its
// application answers, refuses, or hangs). The outcome is OK, slow (a
// success later than Config.SlowAfter), an error, refused, or a timeout
// after Config.Timeout (1 s by default, the kubelet's probe timeout): a
// hung application, or a dead, paused or cut-off node, entry or pod's.
//
// # Simplifications
//
// The client reads the entry node's rules when it sends, one network hop
// before the request reaches that node; a dead entry node loses the
// request (a timeout). A REJECT answers at once, without the round trip.
// Connections are not kept alive: each request is routed anew, as with
// one connection per request. Requests in flight when the client's host
// crashes are never traced.
package apptraffic
