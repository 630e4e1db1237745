// Package kubelet is kubesim's kubelet: the node agent that runs the pods
// bound to its node through a simulated container runtime, probes them,
// reports their status, registers its Node, renews its node Lease and keeps
// the Node's status fresh. It follows the real kubelet's semantics and
// defaults (cited where they are used) as an actor on one simulated host:
// everything happens from delivered messages and fired timers.
//
// # Processes and crashes
//
// Boot builds two things on a host: the container runtime (the ground truth
// of what runs) and the kubelet process on top of it. Kubelet.Restart
// restarts only the kubelet process, as `systemctl restart kubelet` does:
// its informer, timers, probe workers, crash-loop back-offs, status manager
// and API client are dropped and rebuilt, while the runtime and its
// containers survive and are adopted, keeping their readiness as the API
// server last saw it (KEP-4781). A host crash kills both: Boot starts again
// with an empty runtime, so every container of the node's pods starts
// again, its restartCount continuing from the pod's status in the API.
//
// # The simulated application
//
// What a container's application does is read from its pod's annotations
// when the container starts. Every value is a Go duration ("1.5s") unless
// said otherwise. A value that does not parse (or is negative) is ignored,
// as if the annotation were absent, and nothing else happens: no event, no
// error, no panic.
//
//   - AnnotationStartLatency: how long the container takes to start
//     (Waiting/ContainerCreating until then). Default: drawn uniformly in
//     [1 s, 2 s) from the runtime's seeded stream, on every start.
//   - AnnotationExitAfter: the application exits this long after it
//     started running, with AnnotationExitCode (an integer, default 1).
//   - AnnotationHangAfter: the application hangs this long after it started:
//     it never answers a probe again (nor SIGTERM). This is the ground truth
//     of "unhealthy" that ContainerStop.Healthy reports.
//   - AnnotationLoad: windows of world virtual time when the application is
//     busy but healthy, as "60s-180s=3s,300s-320s=5s": a probe that starts
//     in [60 s, 180 s) is answered after 3 s. Outside every window a probe is
//     answered after AppAnswerTime (10 ms).
//   - AnnotationShutdown: how long the application takes to exit after
//     SIGTERM (exit code 0); default 1 s. "0s" means it does not handle
//     SIGTERM and dies of it at once (exit code 143). Past the grace period
//     it is SIGKILLed (exit code 137).
//   - AnnotationServeAfterSigterm: how long the application keeps
//     accepting requests after SIGTERM, as a server that drains does,
//     before its shutdown starts; default 0: it stops accepting at
//     SIGTERM. It then exits after AnnotationShutdown (unless SIGKILL
//     comes first).
//   - AnnotationLivenessPattern and AnnotationReadinessPattern: windows of
//     world virtual time and the answers of the application's liveness or
//     readiness endpoint, as "40s-100s=FFS": the probes of that kind that
//     start in the window are answered in turn by the pattern's letters,
//     cyclically and counted per container run (F: a failure, as an HTTP
//     500; S: a success). Outside every window the endpoint succeeds.
//     AnnotationStartupPattern is the same for the startup endpoint.
//   - AnnotationWarmup: how long the application warms up after it started
//     running: until then every health endpoint answers with a failure.
//
// A probe fails when the application hangs, its answer time exceeds the
// probe's timeoutSeconds, or its answer is a failure; it is answered after
// its answer time, or given up after the timeout. An application that
// hangs, or whose liveness endpoint last answered a failure, is unhealthy:
// that is the ground truth ContainerStop.Healthy reports.
//
// # Stopping a container
//
// The kubelet stops a container as killContainer does: its preStop hook
// (model.Container.Lifecycle, only the sleep action) runs first, within
// the grace period (terminationGracePeriodSeconds, or the deletion's);
// the application keeps running and serving meanwhile. Then SIGTERM, with
// what the grace period has left but at least 2 s
// (minimumGracePeriodInSeconds); then SIGKILL. The kubelet-no-prestop
// ablation skips the hook. While a container stops, its readiness probe
// keeps running and its Ready stays what that probe says until it exits;
// only liveness and startup probing stop (doProbe's graceful shutdown,
// pkg/kubelet/prober/worker.go). An application that stopped accepting
// after SIGTERM refuses its probes too.
//
// # Application traffic
//
// A node's host answers application requests on AppPort (netstack.go): a
// request for a pod IP of the node reaches the pod's first container. It
// is refused at once when no pod has the IP or the container is not
// running, or once the application got SIGTERM and stopped accepting; a
// hung application never answers; otherwise the application answers
// after its answer time (AppAnswerTime, or a busy window's of
// AnnotationLoad), with an error while it warms up. A request for a pod
// of another node is forwarded there (the node a request from outside the
// cluster enters through). A dead, paused or partitioned node answers
// nothing: the client times out. Package apptraffic holds the clients.
//
// # Trace
//
// The runtime traces what really runs: ContainerStart, ContainerKill (the
// kubelet asked it to stop a running container, with the preStop sleep
// that delays SIGTERM) and ContainerStop. The
// prober traces each worker it starts (ProbeWorker, with its thresholds)
// and each probe's raw outcome (ProbeResult); the kubelet traces a pod's
// readiness as it reports it (PodReady).
//
// # Simplifications
//
// A container restart happens exactly when its CrashLoopBackOff expires
// (the real kubelet notices at its next pod sync). Probe workers live with
// one container run: the first probe runs initialDelaySeconds after the
// container started running (for an adopted container, after a random part
// of the period, as the real prober does after a kubelet restart), then every
// periodSeconds. A container with a startupProbe is probed only for
// startup until that succeeds (its liveness and readiness ticks pass; it
// is neither started nor ready); then the startup worker stops, readiness
// is probed at once and liveness at its next tick; failureThreshold
// startup failures in a row kill it, as a liveness failure does.
// Once the kubelet decided to stop a container, the container
// is not ready and no longer probed. Container restarts on image updates
// are not modelled. The runtime carries a container's stop through, its
// preStop sleep included, across a kubelet restart (the real hook dies
// with the kubelet and the new one kills the container again); a second
// stop only brings SIGKILL closer when it asks for a shorter grace period.
// Every port of a pod reaches its first container.
//
// # Admission
//
// A pod bound to the node is admitted before it runs (admit.go): in
// creation order, against what the active pods request of the node's
// allocatable (the pods count, then cpu, memory and any other resource).
// A pod that does not fit is rejected, phase Failed with reason OutOfpods,
// OutOfcpu or OutOfmemory, and never runs: two schedulers that bind to one
// node at once cannot overcommit it. The kubelet traces its allocatable
// when its process starts (NodeAllocatable) and each decision (PodAdmit).
package kubelet
