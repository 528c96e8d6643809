// k8s-validate reads Kubernetes objects (YAML documents, as `helm template` prints them) from
// stdin and decodes each strictly into the Go type the API server decodes it into, at the
// k8s.io/api version go.mod pins: a field the type does not have, a field given twice or a
// value of the wrong type is an error. It prints one JSON line per object
// ({"kind","name","error"?}) and exits 1 when any object fails.
//
// It checks what strict decoding checks (the schema), not the API server's semantic
// validation (for example that a selector matches its template's labels).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"sigs.k8s.io/yaml"
)

// The kinds a chart may render, by apiVersion and kind.
var kinds = map[string]func() any{
	"v1/ConfigMap":                            func() any { return &corev1.ConfigMap{} },
	"v1/Secret":                               func() any { return &corev1.Secret{} },
	"v1/Service":                              func() any { return &corev1.Service{} },
	"v1/ServiceAccount":                       func() any { return &corev1.ServiceAccount{} },
	"v1/Pod":                                  func() any { return &corev1.Pod{} },
	"apps/v1/Deployment":                      func() any { return &appsv1.Deployment{} },
	"apps/v1/StatefulSet":                     func() any { return &appsv1.StatefulSet{} },
	"autoscaling/v2/HorizontalPodAutoscaler":  func() any { return &autoscalingv2.HorizontalPodAutoscaler{} },
	"policy/v1/PodDisruptionBudget":           func() any { return &policyv1.PodDisruptionBudget{} },
	"networking.k8s.io/v1/Ingress":            func() any { return &networkingv1.Ingress{} },
	"networking.k8s.io/v1/NetworkPolicy":      func() any { return &networkingv1.NetworkPolicy{} },
	"rbac.authorization.k8s.io/v1/Role":       func() any { return &rbacv1.Role{} },
	"monitoring.coreos.com/v1/ServiceMonitor": func() any { return &monitoringv1.ServiceMonitor{} },
}

type report struct {
	Kind  string `json:"kind"`
	Name  string `json:"name"`
	Error string `json:"error,omitempty"`
}

func main() {
	in, err := io.ReadAll(bufio.NewReader(os.Stdin))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	failed := false
	out := json.NewEncoder(os.Stdout)
	for _, doc := range documents(in) {
		r := check(doc)
		if r.Error != "" {
			failed = true
		}
		_ = out.Encode(r)
	}
	if failed {
		os.Exit(1)
	}
}

// documents splits a YAML stream at its "---" lines and drops documents that hold only comments.
func documents(in []byte) [][]byte {
	var docs [][]byte
	for _, part := range bytes.Split(append([]byte("\n"), in...), []byte("\n---")) {
		empty := true
		for _, line := range strings.Split(string(part), "\n") {
			t := strings.TrimSpace(line)
			if t != "" && !strings.HasPrefix(t, "#") {
				empty = false
				break
			}
		}
		if !empty {
			docs = append(docs, part)
		}
	}
	return docs
}

func check(doc []byte) report {
	var head struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if err := yaml.Unmarshal(doc, &head); err != nil {
		return report{Error: "not YAML: " + err.Error()}
	}
	r := report{Kind: head.APIVersion + "/" + head.Kind, Name: head.Metadata.Name}
	make, ok := kinds[r.Kind]
	if !ok {
		r.Error = "no schema for " + r.Kind
		return r
	}
	if err := yaml.UnmarshalStrict(doc, make()); err != nil {
		r.Error = err.Error()
	}
	return r
}
