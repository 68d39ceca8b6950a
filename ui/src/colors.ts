/** Colours of statuses and attempt outcomes, shared by the charts and the badges (styles.css). */
export const COLORS = {
  done: '#2e7d32',
  error: '#c62828',
  failed: '#c62828',
  timeout: '#ef6c00',
  lease_expired: '#6a1b9a',
  released: '#546e7a',
  cancelled: '#757575',
  running: '#1565c0',
  waiting: '#cfd8dc',
  latency: '#1565c0',
  latencyMax: '#90caf9',
} as const;
