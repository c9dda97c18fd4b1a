import type { ImportReport } from '../../core/import/import-members';

/** An import's report as `punchcard import customers --json` prints it and the back office's import job gives it. */
export function importReportToWire(report: ImportReport) {
  return {
    imported: report.imported,
    already_members: report.alreadyMembers,
    refused: report.refused,
    refused_by_reason: report.refusedByReason,
    points: report.points,
    points_by_currency: report.pointsByCurrency,
    quick_pay: report.quickPay,
    quick_pay_currency: report.quickPayCurrency?.code ?? null,
    problems: report.reported.map((r) => ({ line: r.line, outcome: r.outcome, reason: r.reason, field: r.field, message: r.message, ...(r.customer_id === undefined ? {} : { customer_id: r.customer_id }) })),
  };
}
