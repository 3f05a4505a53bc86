// The alerts domain over a Kubernetes API: the incidents part is the Kubernetes implementation
// (domains/incidents/kubernetes.ts), for the namespace of the incident the alert run's case names.
// Deps: `kubernetes`, `namespaceOf(incident)`, `prometheusUrl`, `alertmanagerUrl`.
import { kubernetesIncidentsImplementation } from '../incidents/kubernetes.js';
import { alertsOn } from './tools.js';

export const alertsKubernetesImplementation = alertsOn(kubernetesIncidentsImplementation);
