// placement-gql audit: the audit of the database (a mirror, or the standalone cloud) as a report;
// exit status 1 when there is a finding (every kind is an error), 0 when there is none.
import type { CommandOptions } from '../../command.js';
import { openDatabase } from '../../db/client.js';
import { configureOperatorValidators } from '../../catalog/extra-specs-operators.js';
import { AUDIT_KINDS, audit, type AuditFinding } from './audit.service.js';

export function auditText(findings: readonly AuditFinding[], notes: readonly string[]): string {
  const lines: string[] = [];
  for (const kind of AUDIT_KINDS) {
    const of = findings.filter((f) => f.kind === kind);
    if (of.length === 0) continue;
    lines.push(`${kind} (${of.length})`);
    for (const f of of) {
      const subject = [f.subject, f.image !== null ? `with image ${f.image}` : null, f.key !== null ? `[${f.key}]` : null].filter(Boolean).join(' ');
      lines.push(`  ${subject}: ${f.message}`);
    }
  }
  for (const note of notes) lines.push(`Note: ${note}`);
  lines.push(findings.length === 0 ? 'No findings.' : `${findings.length} finding${findings.length === 1 ? '' : 's'}.`);
  return lines.join('\n');
}

export async function auditCommand({ dbFile, values }: CommandOptions): Promise<number> {
  const validators = configureOperatorValidators((values['extra-specs'] as string | undefined) ?? process.env.PLACEMENT_EXTRA_SPECS_FILE);
  if (!validators.ok) {
    console.error(validators.message);
    return 1;
  }
  const db = openDatabase(dbFile);
  try {
    const report = await audit(db);
    if (values.json) console.log(JSON.stringify(report, null, 2));
    else console.log(auditText(report.findings, report.notes));
    return report.findings.length > 0 ? 1 : 0;
  } finally {
    db.close();
  }
}
