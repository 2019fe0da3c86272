import * as fs from 'node:fs';
import { parseProfile } from './src/core/profile';
for (const f of ['h100_gemm_hgmma_raw.csv','h100_gemm_no_ops_raw.csv','a100_sparse_raw.csv','b200_raw.csv','h100_sections_raw.csv','two_gpus_raw.csv','proton_launch_metadata.json','proton_two_gpus.json']) {
  const r = parseProfile(fs.readFileSync('test/fixtures/profiles/' + f, 'utf8'));
  console.log('==', f, r.format, JSON.stringify(r.devices));
  for (const l of r.launches) console.log('  ', l.name.slice(0,50), l.device, JSON.stringify(l.flops), l.dramBytes, l.timeSeconds, l.flops && l.dramBytes ? (l.flops.total / l.dramBytes).toFixed(2) : '', JSON.stringify(l.launchBindings ?? null), l.missing.join(','));
  for (const d of r.diagnostics) console.log('   D', d.code, d.severity, d.message.slice(0, 300));
}
