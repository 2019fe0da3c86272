/** cuda frontend: placeholder until the cuda frontend lands (reports that it is not supported yet). */
import type { Frontend } from '../../analyze';
import { diag } from '../../messages';

export const cudaFrontend: Frontend = () => ({
  language: 'cuda',
  kernels: [],
  diagnostics: [diag('internal', 1, 'info', 'cuda analysis is not available in this build')],
});
