module github.com/kubesim/kubesim/clientgo

go 1.26.0

require (
	github.com/kubesim/kubesim v0.0.0
	github.com/stretchr/testify v1.12.1
	golang.org/x/time v0.9.0
	k8s.io/apimachinery v0.34.13
	k8s.io/client-go v0.34.13
	k8s.io/utils v0.0.0-20250604170112-4c0f3b243397
)

require (
	github.com/go-logr/logr v1.4.3 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
)

replace github.com/kubesim/kubesim => ../
