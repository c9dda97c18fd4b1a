import { Badge, Group, Stack, Text, Title } from '@mantine/core';
import type { CustomerAtCounter } from '../api/terminal-api';
import { formatPoints } from '../format';
import { useLanguage } from '../i18n/language-store';
import { useSession } from '../session/session-store';
import { rewardOptions } from './balances';
import { useCashierStrings } from './strings';

/** Rewards this counter offers, marked when the customer holds enough for them. */
export function RewardsList({ customer }: { customer: CustomerAtCounter }) {
  const t = useCashierStrings();
  const language = useLanguage();
  const rewards = rewardOptions(customer);
  // Points are written as the program's money is (formatPoints).
  const fallbackCode = useSession((s) => s.terminal?.quick_pay_currency ?? null);
  const code = customer.quick_pay_balance.currency?.code ?? fallbackCode;
  const country = useSession((s) => s.terminal?.country ?? null);
  return (
    <Stack gap="xs">
      <Title order={3} size="h5">
        {t.rewardsTitle}
      </Title>
      {rewards.length === 0 ? (
        <Text size="sm" c="dimmed" data-testid="rewards-empty">
          {t.noRewards}
        </Text>
      ) : (
        <Stack component="ul" gap={6} m={0} p={0} aria-label={t.rewardsList}>
          {rewards.map((reward) => (
            // A narrow panel (1024 px) puts the badges under the name rather than cutting them ("400 PO…").
            <Group component="li" key={reward.id} aria-label={reward.name} justify="space-between" wrap="wrap" gap={6} style={{ listStyle: 'none' }} data-testid="reward">
              <Text fw={500} c={reward.affordable ? undefined : 'dimmed'} style={{ flex: '1 1 8rem', minWidth: 0, overflowWrap: 'anywhere' }}>
                {reward.name}
              </Text>
              <Group gap={6} wrap="wrap">
                <Badge variant="light" color={reward.affordable ? 'teal' : 'gray'}>
                  {t.rewardCost(formatPoints(reward.cost, language, code, country), reward.currency.name)}
                </Badge>
                {!reward.affordable && (
                  <Badge variant="outline" color="gray">
                    {t.notEnough}
                  </Badge>
                )}
              </Group>
            </Group>
          ))}
        </Stack>
      )}
    </Stack>
  );
}
