/** wgsl frontend: placeholder until the wgsl frontend lands (reports that it is not supported yet). */
import type { Frontend } from '../../analyze';
import { diag } from '../../messages';

export const wgslFrontend: Frontend = () => ({
  language: 'wgsl',
  kernels: [],
  diagnostics: [diag('internal', 1, 'info', 'wgsl analysis is not available in this build')],
});
