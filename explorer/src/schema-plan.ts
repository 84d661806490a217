// The plan of a schema change, shown before the change is made: what the server's plan route
// (`POST …/Collection/records/<id>/plan/updateCode`, docs/service.md) says it does to the stored records, field by
// field, and to the indexes and permissions. A change that loses stored values is applied only once the user has
// typed the names of the fields whose values it loses (they are then sent as `acceptDataLoss`).
import { h } from './dom.ts';

export interface FieldPlan {
  field: string;
  change: 'added' | 'removed' | 'retyped';
  from?: string;
  to?: string;
  holding: number;
  cast: number;
  lost: number;
  filled: number;
  example?: { id: string; path: string; value: unknown };
}

export interface SchemaPlan {
  collectionId: string;
  records: number;
  fields: FieldPlan[];
  indexes: { built: string[]; dropped: string[] };
  permissions: { on: string; from: string[]; to: string[] }[];
  dataLoss: string[];
  blocked: string[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** What happens to one field's stored values, in words. */
function outcome(field: FieldPlan): string {
  const parts: string[] = [];
  if (field.change === 'added') parts.push(field.filled > 0 ? `${plural(field.filled, 'record')} given the default` : 'no record changes');
  else if (field.holding === 0) parts.push('no record holds a value');
  else {
    if (field.cast > 0) parts.push(`${plural(field.cast, 'value')} cast`);
    if (field.lost > 0) parts.push(`${plural(field.lost, 'value')} lost`);
    const kept = field.holding - field.cast - field.lost;
    if (kept > 0) parts.push(`${plural(kept, 'value')} kept as they are`);
    if (field.filled > 0) parts.push(`${plural(field.filled, 'record')} given the default`);
  }
  return parts.join(', ');
}

function kindOf(field: FieldPlan): string {
  if (field.lost > 0) return 'lossy';
  if (field.change === 'retyped') return field.cast > 0 ? 'cast' : 'retyped';
  return field.change;
}

/**
 * The plan as a panel: a row per field changed, the indexes built and dropped, the permissions changed, and what
 * blocks the change. `confirm` is called with the fields whose loss the user accepted (none for a lossless change)
 * when the user applies it; a blocked change offers no way to apply it.
 */
export function planPanel(plan: SchemaPlan, confirm: (acceptDataLoss: string[]) => void, cancel: () => void): HTMLElement {
  const rows = plan.fields.map((field) =>
    h('tr', { 'data-field': field.field, 'data-change': kindOf(field) },
      h('td', {}, h('code', {}, field.field)),
      h('td', {}, kindOf(field)),
      h('td', {}, h('code', {}, field.from ?? '—'), ' → ', h('code', {}, field.to ?? '—')),
      h('td', {}, outcome(field)),
      h('td', {}, field.example ? h('span', {}, `record "${field.example.id}": `, h('code', {}, `${field.example.path} = ${JSON.stringify(field.example.value)}`)) : '')));
  const sections: HTMLElement[] = [
    h('p', {}, `${plural(plan.records, 'stored record')} in ${plan.collectionId}.`),
    plan.fields.length === 0
      ? h('p', { class: 'muted' }, 'No field is added, removed or retyped.')
      : h('table', { class: 'plan-fields' }, h('thead', {}, h('tr', {}, h('th', {}, 'Field'), h('th', {}, 'Change'), h('th', {}, 'Type'), h('th', {}, 'Stored values'), h('th', {}, 'Example'))), h('tbody', {}, ...rows)),
  ];
  const { built, dropped } = plan.indexes;
  if (built.length + dropped.length > 0) {
    sections.push(h('ul', { class: 'plan-indexes' },
      ...built.map((index) => h('li', {}, 'Index built: ', h('code', {}, index))),
      ...dropped.map((index) => h('li', {}, 'Index dropped: ', h('code', {}, index)))));
  }
  if (plan.permissions.length > 0) {
    sections.push(h('ul', { class: 'plan-permissions' },
      ...plan.permissions.map((p) => h('li', {}, `Permissions of ${p.on}: `, h('code', {}, p.from.join(' ') || 'none'), ' → ', h('code', {}, p.to.join(' ') || 'none')))));
  }
  const apply = h('button', { type: 'button', id: 'confirm-schema' }, plan.dataLoss.length > 0 ? 'Apply and lose these values' : 'Apply this change');
  const actions = h('div', { class: 'schema-bar' }, apply, h('button', { type: 'button', id: 'cancel-plan', onclick: cancel }, 'Back to the editor'));
  if (plan.blocked.length > 0) {
    sections.push(h('div', { class: 'error-box', role: 'alert', id: 'plan-blocked' }, h('strong', {}, 'This change cannot be applied:'), h('ul', {}, ...plan.blocked.map((reason) => h('li', {}, reason)))));
    apply.remove();
  } else if (plan.dataLoss.length > 0) {
    // The user names the fields, as the request will (Prisma's --accept-data-loss).
    const named = h('input', { id: 'accept-data-loss', placeholder: plan.dataLoss.join(', '), autocomplete: 'off' });
    const matches = () => {
      const typed = named.value.split(/[\s,]+/).filter((name) => name !== '').sort();
      return typed.length === plan.dataLoss.length && [...plan.dataLoss].sort().every((name, i) => typed[i] === name);
    };
    apply.disabled = true;
    named.addEventListener('input', () => (apply.disabled = !matches()));
    sections.push(h('div', { class: 'error-box', role: 'alert', id: 'plan-data-loss' },
      h('strong', {}, `This change loses stored values in ${plural(plan.dataLoss.length, 'field')}: ${plan.dataLoss.join(', ')}.`),
      h('label', {}, 'Type the names of these fields to apply it anyway: ', named)));
  }
  apply.addEventListener('click', () => confirm(plan.dataLoss.length > 0 ? [...plan.dataLoss] : []));
  return h('div', { class: 'schema-plan', id: 'schema-plan' }, h('h3', {}, 'What this change does'), ...sections, actions);
}
