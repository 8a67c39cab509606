// The warning about device time that belongs to no operator, shared by the
// Overview (in its diagnostics list) and the Operator view (above its
// table). Input: overview.json's diagnostics.attribution (device_events,
// device_without_launch, device_unattributed, device_us,
// device_unattributed_us, device_unattributed_pct). Output: the warning's
// text, or null when every device event belongs to an operator. Pure: no
// DOM, no requests.
import { fmtInt, fmtUs } from './util.js';

/** The text of the warning for attribution `a`, or null. */
export function unattributedText(a) {
  if (!a) return null;
  const n = (a.device_without_launch || 0) + (a.device_unattributed || 0);
  if (!(n > 0)) return null;
  let pct = a.device_unattributed_pct;
  if (typeof pct !== 'number' && a.device_us > 0 && typeof a.device_unattributed_us === 'number') pct = 100 * a.device_unattributed_us / a.device_us;
  const share = typeof pct === 'number'
    ? ` (${pct.toFixed(pct > 0 && pct < 0.1 ? 2 : 1)} % of device time${typeof a.device_unattributed_us === 'number' ? `, ${fmtUs(a.device_unattributed_us)}` : ''})`
    : '';
  const why = [];
  if (a.device_without_launch > 0) why.push(`${fmtInt(a.device_without_launch)} with no launch (no correlation id nor ac2g flow)`);
  if (a.device_unattributed > 0) why.push(`${fmtInt(a.device_unattributed)} launched outside every operator`);
  return `${fmtInt(n)} of ${fmtInt(a.device_events)} device events${share} belong to no operator; ` +
    `operator device columns leave them out. Of these: ${why.join('; ')}.`;
}
