// The methods an interactive run or an experiment compares (chips), and the label the engine gives each method.

import { useMemo } from 'react';
import type { MethodInfo } from '../../api/contract.ts';
import { ChipGroup, Collapsible, ErrorBox, Loading } from '../../components/ui.tsx';
import { useApp } from '../../store.ts';

export function useMethodLabel(): (id: string) => string {
  const methods = useApp((s) => s.methods.data);
  return useMemo(() => {
    const all = new Map<string, string>();
    for (const m of [...(methods?.methods ?? []), ...(methods?.ladder ?? []), ...(methods?.factorial ?? [])]) all.set(m.id, m.label);
    return (id: string) => all.get(id) ?? id;
  }, [methods]);
}

export function MethodPicker({ value, onChange, testId }: { value: string[]; onChange: (ids: string[]) => void; testId?: string }) {
  const methods = useApp((s) => s.methods);
  const refresh = useApp((s) => s.refreshMethods);
  if (methods.status === 'loading' && !methods.data) return <Loading inline label="Loading methods…" />;
  if (methods.status === 'error') return <ErrorBox error={methods.error} title="Could not list methods" onRetry={() => void refresh()} />;
  const m = methods.data;
  if (!m) return null;
  const opt = (x: MethodInfo) => ({ id: x.id, label: x.label, title: x.description });
  const extra = [...m.ladder, ...m.factorial].filter((x) => value.includes(x.id)).length;
  return (
    <div data-testid={testId ?? 'method-picker'}>
      <ChipGroup label="Methods" options={m.methods.map(opt)} value={value} onChange={onChange} testId="methods" />
      <Collapsible title={`Ladder steps and factorial cells${extra ? ` (${extra} chosen)` : ''}`} testId="more-methods">
        <div className="h4">RQ2 component ladder</div>
        <ChipGroup label="Ladder steps" options={m.ladder.map(opt)} value={value} onChange={onChange} />
        <div className="h4">2³ evidence-source factorial (on OpenCoder)</div>
        <ChipGroup
          label="Factorial cells"
          options={m.factorial.map((x) => ({ id: x.id, label: `${x.id} · ${x.label}`, title: x.description }))}
          value={value}
          onChange={onChange}
        />
      </Collapsible>
    </div>
  );
}
